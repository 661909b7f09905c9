import { Migration } from '@mikro-orm/migrations';

/**
 * Projects' deployment environments: names, slugs and external URLs unique per project, an index for each filter of
 * the list (`name`: the unique one; `states`; `search`, a case-insensitive prefix of the name). A project's go with it.
 */
export class Migration20261127000001_environments extends Migration {
  override name = 'Migration20261127000001_environments';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "environments" ("id" serial primary key, "project_id" int not null, "name" varchar(255) not null, ` +
        `"slug" varchar(24) not null, "external_url" varchar(255) null, "state" text not null default 'available', ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "environments" add constraint "environments_project_id_name_unique" unique ("project_id", "name");`);
    this.addSql(`alter table "environments" add constraint "environments_project_id_slug_unique" unique ("project_id", "slug");`);
    this.addSql(
      `alter table "environments" add constraint "environments_project_id_external_url_unique" unique ("project_id", "external_url");`,
    );
    this.addSql(`create index "environments_project_id_state_index" on "environments" ("project_id", "state");`);
    this.addSql(`create index "environments_project_name_prefix_index" on "environments" ("project_id", lower("name") text_pattern_ops);`);
    this.addSql(
      `alter table "environments" add constraint "environments_project_id_foreign" foreign key ("project_id") ` +
        `references "projects" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "environments" add constraint "environments_state_check" check ("state" in ('available', 'stopped'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "environments" cascade;`);
  }
}

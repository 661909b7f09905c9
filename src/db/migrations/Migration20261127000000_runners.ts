import { Migration } from '@mikro-orm/migrations';

/**
 * CI runners: shared (the instance's), groups' and projects', each found by its token's digest and keeping the token
 * sealed to show again; the projects a specific runner is enabled in and a group runner's group; an index for each
 * filter of the lists (type, active, contact, tags). The instance's registration token and groups' runners tokens,
 * sealed with their digests as projects' are.
 */
export class Migration20261127000000_runners extends Migration {
  override name = 'Migration20261127000000_runners';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "runners" ("id" serial primary key, "token_digest" varchar(64) not null, "token_sealed" text not null, ` +
        `"runner_type" text not null, "description" varchar(255) not null default '', "active" boolean not null default true, ` +
        `"locked" boolean not null default false, "run_untagged" boolean not null default true, "access_level" text not null default ` +
        `'not_protected', "maximum_timeout" int null, "tag_list" text[] not null default '{}', "name" varchar(255) null, ` +
        `"version" varchar(255) null, "revision" varchar(255) null, "platform" varchar(255) null, "architecture" varchar(255) null, ` +
        `"ip_address" varchar(255) null, "contacted_at" timestamptz null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "runners" add constraint "runners_token_digest_unique" unique ("token_digest");`);
    this.addSql(`create index "runners_runner_type_index" on "runners" ("runner_type");`);
    this.addSql(`create index "runners_active_index" on "runners" ("active");`);
    this.addSql(`create index "runners_contacted_at_index" on "runners" ("contacted_at");`);
    this.addSql(`create index "runners_tag_list_index" on "runners" using gin ("tag_list");`);

    this.addSql(
      `create table "runner_groups" ("id" serial primary key, "runner_id" int not null, "group_id" int not null, ` +
        `"created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "runner_groups" add constraint "runner_groups_runner_id_unique" unique ("runner_id");`);
    this.addSql(`create index "runner_groups_group_id_index" on "runner_groups" ("group_id");`);

    this.addSql(
      `create table "runner_projects" ("id" serial primary key, "runner_id" int not null, "project_id" int not null, ` +
        `"created_at" timestamptz not null);`,
    );
    this.addSql(`create index "runner_projects_project_id_index" on "runner_projects" ("project_id");`);
    this.addSql(
      `alter table "runner_projects" add constraint "runner_projects_runner_id_project_id_unique" unique ("runner_id", "project_id");`,
    );

    this.addSql(
      `alter table "application_settings" add "runners_registration_token_sealed" text null, ` +
        `add "runners_registration_token_digest" varchar(64) null;`,
    );

    this.addSql(`alter table "namespaces" add "runners_token_sealed" text null, add "runners_token_digest" varchar(64) null;`);
    this.addSql(`alter table "namespaces" add constraint "namespaces_runners_token_digest_unique" unique ("runners_token_digest");`);

    this.addSql(
      `alter table "runners" add constraint "runners_runner_type_check" ` +
        `check ("runner_type" in ('instance_type', 'group_type', 'project_type'));`,
    );
    this.addSql(
      `alter table "runners" add constraint "runners_access_level_check" check ("access_level" in ('not_protected', 'ref_protected'));`,
    );

    this.addSql(
      `alter table "runner_groups" add constraint "runner_groups_runner_id_foreign" foreign key ("runner_id") ` +
        `references "runners" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "runner_groups" add constraint "runner_groups_group_id_foreign" foreign key ("group_id") ` +
        `references "namespaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "runner_projects" add constraint "runner_projects_runner_id_foreign" foreign key ("runner_id") ` +
        `references "runners" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "runner_projects" add constraint "runner_projects_project_id_foreign" foreign key ("project_id") ` +
        `references "projects" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "runner_groups" drop constraint "runner_groups_runner_id_foreign";`);
    this.addSql(`alter table "runner_projects" drop constraint "runner_projects_runner_id_foreign";`);

    this.addSql(`drop table if exists "runners" cascade;`);
    this.addSql(`drop table if exists "runner_groups" cascade;`);
    this.addSql(`drop table if exists "runner_projects" cascade;`);

    this.addSql(
      `alter table "application_settings" drop column "runners_registration_token_sealed", ` +
        `drop column "runners_registration_token_digest";`,
    );

    this.addSql(`alter table "namespaces" drop constraint "namespaces_runners_token_digest_unique";`);
    this.addSql(`alter table "namespaces" drop column "runners_token_sealed", drop column "runners_token_digest";`);
  }
}

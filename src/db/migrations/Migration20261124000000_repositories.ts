import { Migration } from '@mikro-orm/migrations';
import { addForeignKey, dropForeignKeys, dropTables } from './statements.js';

/** Beside each repository: protected branches, pipelines and commit statuses, commit comments, releases. */
export class Migration20261124000000_repositories extends Migration {
  override name = 'Migration20261124000000_repositories';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "releases" ("id" serial primary key, "project_id" int not null, "tag_name" varchar(255) not null, ` +
        `"name" varchar(255) null, "description" text not null, "sha" varchar(40) null, "author_id" int null, ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null, "released_at" timestamptz not null);`,
    );
    this.addSql(`create index "releases_author_id_index" on "releases" ("author_id");`);
    this.addSql(`alter table "releases" add constraint "releases_project_id_tag_name_unique" unique ("project_id", "tag_name");`);

    this.addSql(
      `create table "protected_branches" ("id" serial primary key, "project_id" int not null, "name" varchar(255) not null, ` +
        `"push_access_level" int not null, "merge_access_level" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "protected_branches" add constraint "protected_branches_project_id_name_unique" unique ("project_id", "name");`,
    );

    this.addSql(
      `create table "pipelines" ("id" serial primary key, "project_id" int not null, "sha" varchar(40) not null, ` +
        `"ref" varchar(255) null, "status" text not null default 'created', "user_id" int null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null);`,
    );
    this.addSql(`create index "pipelines_user_id_index" on "pipelines" ("user_id");`);
    this.addSql(`create index "pipelines_project_id_sha_index" on "pipelines" ("project_id", "sha");`);

    this.addSql(
      `create table "commit_statuses" ("id" serial primary key, "project_id" int not null, "pipeline_id" int not null, ` +
        `"sha" varchar(40) not null, "ref" varchar(255) null, "name" varchar(255) not null, "stage" varchar(255) not null default ` +
        `'test', "status" text not null, "target_url" text null, "description" text null, "coverage" double precision null, ` +
        `"allow_failure" boolean not null default false, "author_id" int null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null);`,
    );
    this.addSql(`create index "commit_statuses_pipeline_id_index" on "commit_statuses" ("pipeline_id");`);
    this.addSql(`create index "commit_statuses_author_id_index" on "commit_statuses" ("author_id");`);
    this.addSql(`create index "commit_statuses_project_id_sha_index" on "commit_statuses" ("project_id", "sha");`);

    this.addSql(
      `create table "commit_notes" ("id" serial primary key, "project_id" int not null, "commit_sha" varchar(40) not null, ` +
        `"note" text not null, "path" text null, "line" int null, "line_type" text null, "author_id" int null, ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "commit_notes_author_id_index" on "commit_notes" ("author_id");`);
    this.addSql(`create index "commit_notes_project_id_commit_sha_index" on "commit_notes" ("project_id", "commit_sha");`);

    addForeignKey(this, 'releases', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'releases', 'author_id', 'users', 'on delete set null');

    addForeignKey(this, 'protected_branches', 'project_id', 'projects', 'on delete cascade');

    addForeignKey(this, 'pipelines', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'pipelines', 'user_id', 'users', 'on delete set null');
    this.addSql(
      `alter table "pipelines" add constraint "pipelines_status_check" check ("status" in ('created', 'pending', 'running', 'success', ` +
        `'failed', 'canceled', 'skipped', 'manual'));`,
    );

    addForeignKey(this, 'commit_statuses', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'commit_statuses', 'pipeline_id', 'pipelines', 'on delete cascade');
    addForeignKey(this, 'commit_statuses', 'author_id', 'users', 'on delete set null');
    this.addSql(
      `alter table "commit_statuses" add constraint "commit_statuses_status_check" ` +
        `check ("status" in ('created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual'));`,
    );

    addForeignKey(this, 'commit_notes', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'commit_notes', 'author_id', 'users', 'on delete set null');
    this.addSql(`alter table "commit_notes" add constraint "commit_notes_line_type_check" check ("line_type" in ('new', 'old'));`);
  }

  override down(): void | Promise<void> {
    dropForeignKeys(this, [['commit_statuses', 'pipeline_id']]);
    dropTables(this, ['releases', 'protected_branches', 'pipelines', 'commit_statuses', 'commit_notes']);
  }
}

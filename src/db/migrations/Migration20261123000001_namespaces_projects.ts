import { Migration } from '@mikro-orm/migrations';
import { addForeignKey, dropForeignKeys, dropTables } from './statements.js';

/**
 * Namespaces (users' and groups'), projects, memberships, shares and stars; every existing user gets its own
 * namespace, named by its username.
 */
export class Migration20261123000001_namespaces_projects extends Migration {
  override name = 'Migration20261123000001_namespaces_projects';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "namespaces" ("id" serial primary key, "kind" text not null, "name" varchar(255) not null, ` +
        `"path" varchar(255) not null, "full_path" text not null, "full_name" text not null, "parent_id" int null, "owner_id" int null, ` +
        `"traversal_ids" int[] not null, "description" text not null default '', "visibility" text not null default 'private', ` +
        `"lfs_enabled" boolean not null default true, "request_access_enabled" boolean not null default false, ` +
        `"avatar_filename" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "namespaces_parent_id_index" on "namespaces" ("parent_id");`);
    this.addSql(`alter table "namespaces" add constraint "namespaces_owner_id_unique" unique ("owner_id");`);
    this.addSql(`create index "namespaces_traversal_ids_index" on "namespaces" using gin ("traversal_ids");`);
    this.addSql(`create unique index "namespaces_full_path_lower_index" on "namespaces" (lower("full_path"));`);
    this.addSql(`create unique index "namespaces_sibling_path_index" on "namespaces" (coalesce("parent_id", 0), lower("path"));`);

    this.addSql(
      `create table "projects" ("id" serial primary key, "name" varchar(255) not null, "path" varchar(255) not null, ` +
        `"namespace_id" int not null, "creator_id" int null, "description" text null, "default_branch" varchar(255) null, ` +
        `"visibility" text not null default 'private', "archived" boolean not null default false, ` +
        `"issues_enabled" boolean not null default true, "merge_requests_enabled" boolean not null default true, ` +
        `"jobs_enabled" boolean not null default true, "wiki_enabled" boolean not null default true, "snippets_enabled" boolean not null ` +
        `default true, "resolve_outdated_diff_discussions" boolean not null default false, "container_registry_enabled" boolean not null ` +
        `default true, "shared_runners_enabled" boolean not null default true, "public_jobs" boolean not null default true, ` +
        `"only_allow_merge_if_pipeline_succeeds" boolean not null default false, "only_allow_merge_if_all_discussions_are_resolved" ` +
        `boolean not null default false, "lfs_enabled" boolean not null default true, "request_access_enabled" boolean not null default ` +
        `false, "printing_merge_request_link_enabled" boolean not null default true, "tag_list" text[] not null default '{}', ` +
        `"ci_config_path" varchar(255) null, "repository_storage" varchar(255) not null, "import_url" text null, ` +
        `"import_status" text not null default 'none', "import_error" text null, "forked_from_id" int null, ` +
        `"avatar_filename" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, ` +
        `"last_activity_at" timestamptz not null);`,
    );
    this.addSql(`create index "projects_namespace_id_index" on "projects" ("namespace_id");`);
    this.addSql(`create index "projects_forked_from_id_index" on "projects" ("forked_from_id");`);
    this.addSql(`create unique index "projects_namespace_path_index" on "projects" ("namespace_id", lower("path"));`);
    this.addSql(`create index "projects_visibility_index" on "projects" ("visibility");`);
    this.addSql(`create index "projects_created_at_index" on "projects" ("created_at");`);
    this.addSql(`create index "projects_last_activity_at_index" on "projects" ("last_activity_at");`);

    this.addSql(
      `create table "project_stars" ("id" serial primary key, "project_id" int not null, "user_id" int not null, ` +
        `"created_at" timestamptz not null);`,
    );
    this.addSql(`create index "project_stars_user_id_index" on "project_stars" ("user_id");`);
    this.addSql(`alter table "project_stars" add constraint "project_stars_project_id_user_id_unique" unique ("project_id", "user_id");`);

    this.addSql(
      `create table "project_members" ("id" serial primary key, "project_id" int not null, "user_id" int not null, ` +
        `"access_level" int not null, "expires_at" varchar(10) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "project_members_user_id_index" on "project_members" ("user_id");`);
    this.addSql(
      `alter table "project_members" add constraint "project_members_project_id_user_id_unique" unique ("project_id", "user_id");`,
    );

    this.addSql(
      `create table "project_group_links" ("id" serial primary key, "project_id" int not null, "group_id" int not null, ` +
        `"group_access" int not null, "expires_at" varchar(10) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "project_group_links_group_id_index" on "project_group_links" ("group_id");`);
    this.addSql(
      `alter table "project_group_links" add constraint "project_group_links_project_id_group_id_unique" ` +
        `unique ("project_id", "group_id");`,
    );

    this.addSql(
      `create table "group_members" ("id" serial primary key, "group_id" int not null, "user_id" int not null, ` +
        `"access_level" int not null, "expires_at" varchar(10) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "group_members_user_id_index" on "group_members" ("user_id");`);
    this.addSql(`alter table "group_members" add constraint "group_members_group_id_user_id_unique" unique ("group_id", "user_id");`);

    addForeignKey(this, 'namespaces', 'parent_id', 'namespaces', 'on delete cascade');
    addForeignKey(this, 'namespaces', 'owner_id', 'users', 'on delete cascade');
    this.addSql(`alter table "namespaces" add constraint "namespaces_kind_check" check ("kind" in ('user', 'group'));`);
    this.addSql(
      `alter table "namespaces" add constraint "namespaces_visibility_check" check ("visibility" in ('private', 'internal', 'public'));`,
    );

    addForeignKey(this, 'projects', 'namespace_id', 'namespaces', 'on delete cascade');
    addForeignKey(this, 'projects', 'creator_id', 'users', 'on delete set null');
    addForeignKey(this, 'projects', 'forked_from_id', 'projects', 'on delete set null');
    this.addSql(
      `alter table "projects" add constraint "projects_visibility_check" check ("visibility" in ('private', 'internal', 'public'));`,
    );
    this.addSql(
      `alter table "projects" add constraint "projects_import_status_check" ` +
        `check ("import_status" in ('none', 'scheduled', 'started', 'finished', 'failed'));`,
    );

    addForeignKey(this, 'project_stars', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'project_stars', 'user_id', 'users', 'on delete cascade');

    addForeignKey(this, 'project_members', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'project_members', 'user_id', 'users', 'on delete cascade');

    addForeignKey(this, 'project_group_links', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'project_group_links', 'group_id', 'namespaces', 'on delete cascade');

    addForeignKey(this, 'group_members', 'group_id', 'namespaces', 'on delete cascade');
    addForeignKey(this, 'group_members', 'user_id', 'users', 'on delete cascade');

    this.addSql(
      `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "owner_id", "traversal_ids", "created_at", ` +
        `"updated_at") select 'user', "username", "username", "username", "name", "id", '{}', now(), now() from "users";`,
    );
    this.addSql(`update "namespaces" set "traversal_ids" = array["id"];`);
  }

  override down(): void | Promise<void> {
    dropForeignKeys(this, [
      ['namespaces', 'parent_id'],
      ['projects', 'namespace_id'],
      ['project_group_links', 'group_id'],
      ['group_members', 'group_id'],
      ['projects', 'forked_from_id'],
      ['project_stars', 'project_id'],
      ['project_members', 'project_id'],
      ['project_group_links', 'project_id'],
    ]);
    dropTables(this, ['namespaces', 'projects', 'project_stars', 'project_members', 'project_group_links', 'group_members']);
  }
}

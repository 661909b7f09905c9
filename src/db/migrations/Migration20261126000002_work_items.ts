import { Migration } from '@mikro-orm/migrations';

/**
 * Work items: issues with their assignees, labels, milestones, notes, award emoji, subscriptions, time logs and iid counters; open issue
 * counts on projects.
 */
export class Migration20261126000002_work_items extends Migration {
  override name = 'Migration20261126000002_work_items';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "timelogs" ("id" serial primary key, "target_kind" text not null, "target_id" int not null, "user_id" int null, ` +
        `"time_spent" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "timelogs_user_id_index" on "timelogs" ("user_id");`);
    this.addSql(`create index "timelogs_target_kind_target_id_index" on "timelogs" ("target_kind", "target_id");`);

    this.addSql(
      `create table "subscriptions" ("id" serial primary key, "user_id" int not null, "target_kind" text not null, ` +
        `"target_id" int not null, "subscribed" boolean not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "subscriptions_user_id_index" on "subscriptions" ("user_id");`);
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_target_kind_target_id_user_id_unique" ` +
        `unique ("target_kind", "target_id", "user_id");`,
    );

    this.addSql(
      `create table "notes" ("id" serial primary key, "project_id" int not null, "target_kind" text not null, "target_id" int not null, ` +
        `"author_id" int null, "body" text not null, "system" boolean not null default false, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "notes_project_id_index" on "notes" ("project_id");`);
    this.addSql(`create index "notes_author_id_index" on "notes" ("author_id");`);
    this.addSql(`create index "notes_target_kind_target_id_created_at_index" on "notes" ("target_kind", "target_id", "created_at");`);

    this.addSql(
      `create table "labels" ("id" serial primary key, "project_id" int not null, "title" varchar(255) not null, ` +
        `"color" varchar(7) not null, "description" text null, "priority" int null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "labels" add constraint "labels_project_id_title_unique" unique ("project_id", "title");`);

    this.addSql(
      `create table "label_links" ("id" serial primary key, "label_id" int not null, "target_kind" text not null, ` +
        `"target_id" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "label_links_label_id_index" on "label_links" ("label_id");`);
    this.addSql(
      `alter table "label_links" add constraint "label_links_target_kind_target_id_label_id_unique" ` +
        `unique ("target_kind", "target_id", "label_id");`,
    );

    this.addSql(
      `create table "milestones" ("id" serial primary key, "iid" int not null, "project_id" int null, "group_id" int null, ` +
        `"title" varchar(255) not null, "description" text null, "state" text not null default 'active', "due_date" varchar(10) null, ` +
        `"start_date" varchar(10) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "milestones_project_id_index" on "milestones" ("project_id");`);
    this.addSql(`create index "milestones_group_id_index" on "milestones" ("group_id");`);
    this.addSql(
      `create unique index "milestones_project_title_index" on "milestones" ("project_id", "title") where "project_id" is not null;`,
    );
    this.addSql(`create unique index "milestones_group_title_index" on "milestones" ("group_id", "title") where "group_id" is not null;`);
    this.addSql(`create index "milestones_title_trgm_index" on "milestones" using gin ("title" gin_trgm_ops);`);

    this.addSql(
      `create table "internal_ids" ("id" serial primary key, "usage" text not null, "project_id" int null, "namespace_id" int null, ` +
        `"last_value" int not null);`,
    );
    this.addSql(`create index "internal_ids_project_id_index" on "internal_ids" ("project_id");`);
    this.addSql(`create index "internal_ids_namespace_id_index" on "internal_ids" ("namespace_id");`);
    this.addSql(
      `create unique index "internal_ids_scope_index" on "internal_ids" ("usage", coalesce("project_id", 0), coalesce("namespace_id", 0));`,
    );

    this.addSql(
      `create table "issues" ("id" serial primary key, "project_id" int not null, "iid" int not null, "title" varchar(255) not null, ` +
        `"description" text null, "state" text not null default 'opened', "author_id" int null, "confidential" boolean not null default ` +
        `false, "discussion_locked" boolean not null default false, "due_date" varchar(10) null, "milestone_id" int null, ` +
        `"closed_at" timestamptz null, "closed_by_id" int null, "moved_to_id" int null, "time_estimate" int not null default 0, ` +
        `"total_time_spent" int not null default 0, "relative_position" int null, "deleted_at" timestamptz null, ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "issues_author_id_index" on "issues" ("author_id");`);
    this.addSql(`create index "issues_due_date_index" on "issues" ("due_date");`);
    this.addSql(`create index "issues_milestone_id_index" on "issues" ("milestone_id");`);
    this.addSql(`create index "issues_closed_by_id_index" on "issues" ("closed_by_id");`);
    this.addSql(`create index "issues_moved_to_id_index" on "issues" ("moved_to_id");`);
    this.addSql(`create index "issues_project_id_state_created_at_index" on "issues" ("project_id", "state", "created_at");`);
    this.addSql(`create index "issues_project_id_updated_at_index" on "issues" ("project_id", "updated_at");`);
    this.addSql(`create index "issues_created_at_index" on "issues" ("created_at");`);
    this.addSql(`create index "issues_updated_at_index" on "issues" ("updated_at");`);
    this.addSql(`create index "issues_title_trgm_index" on "issues" using gin ("title" gin_trgm_ops);`);
    this.addSql(`create index "issues_description_trgm_index" on "issues" using gin ("description" gin_trgm_ops);`);
    this.addSql(`alter table "issues" add constraint "issues_project_id_iid_unique" unique ("project_id", "iid");`);

    this.addSql(`create table "issue_assignees" ("id" serial primary key, "issue_id" int not null, "user_id" int not null);`);
    this.addSql(`create index "issue_assignees_user_id_index" on "issue_assignees" ("user_id");`);
    this.addSql(`alter table "issue_assignees" add constraint "issue_assignees_issue_id_user_id_unique" unique ("issue_id", "user_id");`);

    this.addSql(
      `create table "award_emoji" ("id" serial primary key, "name" varchar(255) not null, "user_id" int not null, ` +
        `"target_kind" text not null, "target_id" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "award_emoji_user_id_name_index" on "award_emoji" ("user_id", "name");`);
    this.addSql(
      `alter table "award_emoji" add constraint "award_emoji_target_kind_target_id_user_id_name_unique" ` +
        `unique ("target_kind", "target_id", "user_id", "name");`,
    );

    this.addSql(
      `alter table "projects" add "open_issues_count" int not null default 0, add "open_confidential_issues_count" int not null default 0;`,
    );

    this.addSql(
      `alter table "timelogs" add constraint "timelogs_user_id_foreign" foreign key ("user_id") references "users" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(
      `alter table "timelogs" add constraint "timelogs_target_kind_check" check ("target_kind" in ('Issue', 'MergeRequest', 'Note'));`,
    );

    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_user_id_foreign" foreign key ("user_id") references "users" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_target_kind_check" ` +
        `check ("target_kind" in ('Issue', 'MergeRequest', 'Label'));`,
    );

    this.addSql(
      `alter table "notes" add constraint "notes_project_id_foreign" foreign key ("project_id") references "projects" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(
      `alter table "notes" add constraint "notes_author_id_foreign" foreign key ("author_id") references "users" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(`alter table "notes" add constraint "notes_target_kind_check" check ("target_kind" in ('Issue', 'MergeRequest', 'Note'));`);

    this.addSql(
      `alter table "labels" add constraint "labels_project_id_foreign" foreign key ("project_id") references "projects" ("id") ` +
        `on delete cascade;`,
    );

    this.addSql(
      `alter table "label_links" add constraint "label_links_label_id_foreign" foreign key ("label_id") references "labels" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(
      `alter table "label_links" add constraint "label_links_target_kind_check" ` +
        `check ("target_kind" in ('Issue', 'MergeRequest', 'Note'));`,
    );

    this.addSql(
      `alter table "milestones" add constraint "milestones_project_id_foreign" foreign key ("project_id") references "projects" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(
      `alter table "milestones" add constraint "milestones_group_id_foreign" foreign key ("group_id") references "namespaces" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(`alter table "milestones" add constraint "milestones_state_check" check ("state" in ('active', 'closed'));`);

    this.addSql(
      `alter table "internal_ids" add constraint "internal_ids_project_id_foreign" foreign key ("project_id") ` +
        `references "projects" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "internal_ids" add constraint "internal_ids_namespace_id_foreign" foreign key ("namespace_id") ` +
        `references "namespaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "internal_ids" add constraint "internal_ids_usage_check" check ("usage" in ('issues', 'merge_requests', 'milestones', ` +
        `'group_milestones'));`,
    );

    this.addSql(
      `alter table "issues" add constraint "issues_project_id_foreign" foreign key ("project_id") references "projects" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(
      `alter table "issues" add constraint "issues_author_id_foreign" foreign key ("author_id") references "users" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(
      `alter table "issues" add constraint "issues_milestone_id_foreign" foreign key ("milestone_id") references "milestones" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(
      `alter table "issues" add constraint "issues_closed_by_id_foreign" foreign key ("closed_by_id") references "users" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(
      `alter table "issues" add constraint "issues_moved_to_id_foreign" foreign key ("moved_to_id") references "issues" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(`alter table "issues" add constraint "issues_state_check" check ("state" in ('opened', 'closed'));`);
    this.addSql(
      `create or replace function "issues_count_open_issues_fn"() returns trigger as $$ begin if tg_op <> 'INSERT' ` +
        `and old."state" = 'opened' and old."deleted_at" is null and (tg_op = 'DELETE' or new."state" <> 'opened' or new."deleted_at" is ` +
        `not null or new."confidential" <> old."confidential" or new."project_id" <> old."project_id") then
  update "projects" set "open_issues_count" = "open_issues_count" - 1, ` +
        `"open_confidential_issues_count" = "open_confidential_issues_count" - old."confidential"::int where "id" = old."project_id"; ` +
        `end if; if tg_op <> 'DELETE' and new."state" = 'opened' and new."deleted_at" is null and (tg_op = 'INSERT' or old."state" <> ` +
        `'opened' or old."deleted_at" is not null or new."confidential" <> old."confidential" or new."project_id" <> old."project_id") then
  update "projects" set "open_issues_count" = "open_issues_count" + 1, ` +
        `"open_confidential_issues_count" = "open_confidential_issues_count" + new."confidential"::int where "id" = new."project_id"; ` +
        `end if; return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "count_open_issues" AFTER INSERT OR UPDATE ` +
        `OR DELETE on "issues" for each ROW execute function "issues_count_open_issues_fn"();`,
    );

    this.addSql(
      `alter table "issue_assignees" add constraint "issue_assignees_issue_id_foreign" foreign key ("issue_id") ` +
        `references "issues" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "issue_assignees" add constraint "issue_assignees_user_id_foreign" foreign key ("user_id") references "users" ("id") ` +
        `on delete cascade;`,
    );

    this.addSql(
      `alter table "award_emoji" add constraint "award_emoji_user_id_foreign" foreign key ("user_id") references "users" ("id") ` +
        `on delete cascade;`,
    );
    this.addSql(
      `alter table "award_emoji" add constraint "award_emoji_target_kind_check" ` +
        `check ("target_kind" in ('Issue', 'MergeRequest', 'Note'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "label_links" drop constraint "label_links_label_id_foreign";`);
    this.addSql(`alter table "issues" drop constraint "issues_milestone_id_foreign";`);
    this.addSql(`alter table "issues" drop constraint "issues_moved_to_id_foreign";`);
    this.addSql(`alter table "issue_assignees" drop constraint "issue_assignees_issue_id_foreign";`);

    this.addSql(`drop table if exists "timelogs" cascade;`);
    this.addSql(`drop table if exists "subscriptions" cascade;`);
    this.addSql(`drop table if exists "notes" cascade;`);
    this.addSql(`drop table if exists "labels" cascade;`);
    this.addSql(`drop table if exists "label_links" cascade;`);
    this.addSql(`drop table if exists "milestones" cascade;`);
    this.addSql(`drop table if exists "internal_ids" cascade;`);
    this.addSql(`drop trigger if exists "count_open_issues" on "issues";`);
    this.addSql(`drop function if exists "issues_count_open_issues_fn"();`);
    this.addSql(`drop table if exists "issues" cascade;`);
    this.addSql(`drop table if exists "issue_assignees" cascade;`);
    this.addSql(`drop table if exists "award_emoji" cascade;`);

    this.addSql(`alter table "projects" drop column "open_issues_count", drop column "open_confidential_issues_count";`);
  }
}

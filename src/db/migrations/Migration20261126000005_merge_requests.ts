import { Migration } from '@mikro-orm/migrations';

/** Merge requests with their assignees: what a moving branch finds (from it, into it), one open request per pair of branches. */
export class Migration20261126000005_merge_requests extends Migration {
  override name = 'Migration20261126000005_merge_requests';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "merge_requests" ("id" serial primary key, "project_id" int not null, "iid" int not null, ` +
        `"source_project_id" int null, "source_branch" varchar(255) not null, "target_branch" varchar(255) not null, ` +
        `"title" varchar(255) not null, "description" text null, "state" text not null default 'opened', "author_id" int null, ` +
        `"milestone_id" int null, "discussion_locked" boolean not null default false, "merge_status" text not null default 'unchecked', ` +
        `"head_sha" varchar(40) null, "start_sha" varchar(40) null, "base_sha" varchar(40) null, "merge_commit_sha" varchar(40) null, ` +
        `"merged_by_id" int null, "merged_at" timestamptz null, "closed_by_id" int null, "closed_at" timestamptz null, ` +
        `"merge_when_pipeline_succeeds" boolean not null default false, "merge_user_id" int null, "merge_commit_message" text null, ` +
        `"should_remove_source_branch" boolean null, "force_remove_source_branch" boolean not null default false, ` +
        `"time_estimate" int not null default 0, "total_time_spent" int not null default 0, "deleted_at" timestamptz null, ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "merge_requests_author_id_index" on "merge_requests" ("author_id");`);
    this.addSql(`create index "merge_requests_milestone_id_index" on "merge_requests" ("milestone_id");`);
    this.addSql(`create index "merge_requests_merged_by_id_index" on "merge_requests" ("merged_by_id");`);
    this.addSql(`create index "merge_requests_closed_by_id_index" on "merge_requests" ("closed_by_id");`);
    this.addSql(`create index "merge_requests_merge_user_id_index" on "merge_requests" ("merge_user_id");`);
    this.addSql(
      `create index "merge_requests_project_id_state_created_at_index" on "merge_requests" ("project_id", "state", "created_at");`,
    );
    this.addSql(`create index "merge_requests_project_id_created_at_index" on "merge_requests" ("project_id", "created_at");`);
    this.addSql(`create index "merge_requests_project_id_updated_at_index" on "merge_requests" ("project_id", "updated_at");`);
    this.addSql(`create index "merge_requests_created_at_index" on "merge_requests" ("created_at");`);
    this.addSql(`create index "merge_requests_updated_at_index" on "merge_requests" ("updated_at");`);
    this.addSql(
      `create index "merge_requests_source_project_id_source_branch_index" on "merge_requests" ("source_project_id", "source_branch");`,
    );
    this.addSql(`create index "merge_requests_project_id_target_branch_index" on "merge_requests" ("project_id", "target_branch");`);
    this.addSql(
      `create unique index "merge_requests_open_pair_index" on "merge_requests" ("source_project_id", "source_branch", "project_id", ` +
        `"target_branch") where "state" = 'opened' and "deleted_at" is null;`,
    );
    this.addSql(
      `create index "merge_requests_search_trgm_index" on "merge_requests" ` +
        `using gin (("title" || ' ' || coalesce("description", '')) gin_trgm_ops);`,
    );
    this.addSql(`alter table "merge_requests" add constraint "merge_requests_project_id_iid_unique" unique ("project_id", "iid");`);

    this.addSql(
      `create table "merge_request_assignees" ("id" serial primary key, "merge_request_id" int not null, "user_id" int not null);`,
    );
    this.addSql(`create index "merge_request_assignees_user_id_index" on "merge_request_assignees" ("user_id");`);
    this.addSql(
      `alter table "merge_request_assignees" add constraint "merge_request_assignees_merge_request_id_user_id_unique" ` +
        `unique ("merge_request_id", "user_id");`,
    );

    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_project_id_foreign" foreign key ("project_id") ` +
        `references "projects" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_source_project_id_foreign" foreign key ("source_project_id") ` +
        `references "projects" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_author_id_foreign" foreign key ("author_id") ` +
        `references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_milestone_id_foreign" foreign key ("milestone_id") ` +
        `references "milestones" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_merged_by_id_foreign" foreign key ("merged_by_id") ` +
        `references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_closed_by_id_foreign" foreign key ("closed_by_id") ` +
        `references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_merge_user_id_foreign" foreign key ("merge_user_id") ` +
        `references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_state_check" ` +
        `check ("state" in ('opened', 'closed', 'merged', 'locked'));`,
    );
    this.addSql(
      `alter table "merge_requests" add constraint "merge_requests_merge_status_check" ` +
        `check ("merge_status" in ('unchecked', 'can_be_merged', 'cannot_be_merged'));`,
    );

    this.addSql(
      `alter table "merge_request_assignees" add constraint "merge_request_assignees_merge_request_id_foreign" ` +
        `foreign key ("merge_request_id") references "merge_requests" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "merge_request_assignees" add constraint "merge_request_assignees_user_id_foreign" foreign key ("user_id") ` +
        `references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "merge_request_assignees" drop constraint "merge_request_assignees_merge_request_id_foreign";`);

    this.addSql(`drop table if exists "merge_requests" cascade;`);
    this.addSql(`drop table if exists "merge_request_assignees" cascade;`);
  }
}

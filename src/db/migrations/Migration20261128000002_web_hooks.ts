import { Migration } from '@mikro-orm/migrations';
import { addForeignKey } from './statements.js';

/** Webhooks (project, group and system hooks) and their deliveries (src/db/entities/hooks.ts). */
export class Migration20261128000002_web_hooks extends Migration {
  override name = 'Migration20261128000002_web_hooks';

  override up(): void | Promise<void> {
    const flags = [
      'tag_push_events',
      'issues_events',
      'confidential_issues_events',
      'merge_requests_events',
      'note_events',
      'confidential_note_events',
      'job_events',
      'pipeline_events',
      'wiki_page_events',
      'repository_update_events',
    ].map((flag) => `"${flag}" boolean not null default false`);
    this.addSql(
      `create table "web_hooks" ("id" serial primary key, "type" text not null, ` +
        `"project_id" int null, "group_id" int null, "url" text not null, "token_sealed" text null, ` +
        `"push_events" boolean not null default true, "push_events_branch_filter" text null, ${flags.join(', ')}, ` +
        `"enable_ssl_verification" boolean not null default true, "recent_failures" int not null default 0, ` +
        `"disabled_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "web_hooks" add constraint "web_hooks_type_check" check ("type" in ('ProjectHook', 'SystemHook', 'GroupHook'));`,
    );
    this.addSql(`create index "web_hooks_project_id_index" on "web_hooks" ("project_id");`);
    this.addSql(`create index "web_hooks_group_id_index" on "web_hooks" ("group_id");`);
    this.addSql(`create index "web_hooks_system_index" on "web_hooks" ("id") where "type" = 'SystemHook';`);
    addForeignKey(this, 'web_hooks', 'project_id', 'projects', 'on delete cascade');
    addForeignKey(this, 'web_hooks', 'group_id', 'namespaces', 'on delete cascade');
    this.addSql(
      `create table "web_hook_logs" ("id" serial primary key, "hook_id" int not null, "trigger" varchar(64) not null, ` +
        `"url" text not null, "request_headers" jsonb not null, "request_data" jsonb not null, ` +
        `"status" text not null default 'pending', ` +
        `"attempts" int not null default 0, "response_status" varchar(32) null, "response_headers" jsonb null, ` +
        `"response_body" text null, "internal_error_message" text null, "execution_duration" double precision null, ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "web_hook_logs" add constraint "web_hook_logs_status_check" check ("status" in ('pending', 'delivered', 'failed'));`,
    );
    this.addSql(`create index "web_hook_logs_hook_id_id_index" on "web_hook_logs" ("hook_id", "id");`);
    this.addSql(`create index "web_hook_logs_created_at_index" on "web_hook_logs" ("created_at");`);
    this.addSql(`create index "web_hook_logs_pending_index" on "web_hook_logs" ("hook_id", "id") where "status" = 'pending';`);
    addForeignKey(this, 'web_hook_logs', 'hook_id', 'web_hooks', 'on delete cascade');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "web_hook_logs" cascade;`);
    this.addSql(`drop table if exists "web_hooks" cascade;`);
  }
}

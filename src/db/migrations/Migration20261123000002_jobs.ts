import { Migration } from '@mikro-orm/migrations';

/** Background jobs, claimed by any process and leased while they run (src/db/entities/jobs.ts, src/jobs/queue.ts). */
export class Migration20261123000002_jobs extends Migration {
  override name = 'Migration20261123000002_jobs';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "jobs" ("id" serial primary key, "kind" varchar(64) not null, "payload" jsonb not null, ` +
        `"status" text not null default 'queued', "attempts" int not null default 0, "max_attempts" int not null, ` +
        `"run_at" timestamptz not null, "locked_by" varchar(64) null, "locked_until" timestamptz null, "last_error" text null, ` +
        `"created_at" timestamptz not null, "finished_at" timestamptz null);`,
    );
    this.addSql(`create index "jobs_queued_index" on "jobs" ("run_at") where "status" = 'queued';`);
    this.addSql(`create index "jobs_running_index" on "jobs" ("locked_until") where "status" = 'running';`);
    this.addSql(`create index "jobs_finished_at_index" on "jobs" ("finished_at");`);

    this.addSql(`alter table "jobs" add constraint "jobs_status_check" check ("status" in ('queued', 'running', 'finished', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "jobs" cascade;`);
  }
}

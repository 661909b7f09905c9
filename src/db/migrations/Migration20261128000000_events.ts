import { Migration } from '@mikro-orm/migrations';

/**
 * The record of what happens (src/events/): the events, indexed for the Events API (a project's, an author's) and for
 * the deferred consumers, whose cursors are kept beside them.
 */
export class Migration20261128000000_events extends Migration {
  override name = 'Migration20261128000000_events';

  override up(): void | Promise<void> {
    this.addSql(
      'create table "events" ("id" serial primary key, "kind" varchar(64) not null, "action" varchar(16) null, "author_id" int null, ' +
        '"project_id" int null, "group_id" int null, "target_type" varchar(32) null, "target_id" int null, "target_iid" int null, ' +
        '"target_title" text null, "issue_id" int null, "merge_request_id" int null, "data" jsonb not null, ' +
        '"xid" bigint not null default ((pg_current_xact_id())::text)::bigint, "created_at" timestamptz not null);',
    );
    this.addSql('create index "events_project_index" on "events" ("project_id", "id") where "action" is not null;');
    this.addSql('create index "events_author_index" on "events" ("author_id", "id") where "action" is not null;');
    this.addSql('create index "events_transaction_index" on "events" ("xid", "id");');
    this.addSql(
      'create table "event_cursors" ("consumer" varchar(64) not null, "xid" bigint not null, "event_id" int not null, ' +
        '"updated_at" timestamptz not null, constraint "event_cursors_pkey" primary key ("consumer"));',
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "events" cascade;');
    this.addSql('drop table if exists "event_cursors" cascade;');
  }
}

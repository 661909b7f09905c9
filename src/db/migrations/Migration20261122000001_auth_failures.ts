import { Migration } from '@mikro-orm/migrations';

/** Failed authentications per client address and login, for throttling (src/db/entities/auth-failures.ts). */
export class Migration20261122000001_auth_failures extends Migration {
  override name = 'Migration20261122000001_auth_failures';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "auth_failures" ("key_digest" varchar(64) not null, "failures" int not null, "window_ends_at" timestamptz not null, ` +
        `primary key ("key_digest"));`,
    );
    this.addSql(`create index "auth_failures_window_ends_at_index" on "auth_failures" ("window_ends_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "auth_failures" cascade;`);
  }
}

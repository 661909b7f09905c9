import { Migration } from '@mikro-orm/migrations';
import { addForeignKey } from './statements.js';

/**
 * Groups shared with groups (POST /groups/:id/share): one share per pair, found from either side by an index (the
 * shared group's by the unique pair); a share goes with either group.
 */
export class Migration20261127000002_group_links extends Migration {
  override name = 'Migration20261127000002_group_links';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "group_group_links" ("id" serial primary key, "shared_group_id" int not null, "shared_with_group_id" int not null, ` +
        `"group_access" int not null, "expires_at" varchar(10) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "group_group_links_shared_with_group_id_index" on "group_group_links" ("shared_with_group_id");`);
    this.addSql(
      `alter table "group_group_links" add constraint "group_group_links_shared_group_id_shared_with_group_id_unique" ` +
        `unique ("shared_group_id", "shared_with_group_id");`,
    );
    addForeignKey(this, 'group_group_links', 'shared_group_id', 'namespaces', 'on delete cascade');
    addForeignKey(this, 'group_group_links', 'shared_with_group_id', 'namespaces', 'on delete cascade');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "group_group_links" cascade;`);
  }
}

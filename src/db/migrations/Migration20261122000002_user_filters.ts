import { Migration } from '@mikro-orm/migrations';

/** Indexes for the `admins` and `two_factor` filters of GET /users. */
export class Migration20261122000002_user_filters extends Migration {
  override name = 'Migration20261122000002_user_filters';

  override up(): void | Promise<void> {
    this.addSql(`create index "users_admin_index" on "users" ("admin");`);
    this.addSql(`create index "users_two_factor_enabled_index" on "users" ("two_factor_enabled");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "users_admin_index";`);
    this.addSql(`drop index "users_two_factor_enabled_index";`);
  }
}

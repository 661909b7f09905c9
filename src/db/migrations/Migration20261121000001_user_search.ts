import { Migration } from '@mikro-orm/migrations';

/** Trigram indexes for the case-insensitive substring `search` of GET /users. */
export class Migration20261121000001_user_search extends Migration {
  override name = 'Migration20261121000001_user_search';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create index "users_name_trgm_index" on "users" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "users_username_trgm_index" on "users" using gin ("username" gin_trgm_ops);`);
    this.addSql(`create index "users_email_trgm_index" on "users" using gin ("email" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "users_name_trgm_index";`);
    this.addSql(`drop index "users_username_trgm_index";`);
    this.addSql(`drop index "users_email_trgm_index";`);
  }
}

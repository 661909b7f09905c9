import { Migration } from '@mikro-orm/migrations';

/** Tells every process when users or tokens change: each keeps the callers it authenticated (src/auth/caller.ts). */
export class Migration20261123000000_callers_changed extends Migration {

  override name = 'Migration20261123000000_callers_changed';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "users_callers_changed_fn"() returns trigger as \$\$ begin perform pg_notify('forgekit_callers_changed', ''); return null; end; \$\$ language plpgsql;`);
    this.addSql(`create trigger "callers_changed" AFTER UPDATE OR DELETE on "users" for each STATEMENT execute function "users_callers_changed_fn"();`);

    this.addSql(`create or replace function "access_tokens_callers_changed_fn"() returns trigger as \$\$ begin perform pg_notify('forgekit_callers_changed', ''); return null; end; \$\$ language plpgsql;`);
    this.addSql(`create trigger "callers_changed" AFTER UPDATE OR DELETE on "access_tokens" for each STATEMENT execute function "access_tokens_callers_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "callers_changed" on "access_tokens";`);
    this.addSql(`drop function if exists "access_tokens_callers_changed_fn"();`);

    this.addSql(`drop trigger if exists "callers_changed" on "users";`);
    this.addSql(`drop function if exists "users_callers_changed_fn"();`);
  }

}

import { Migration } from '@mikro-orm/migrations';

/**
 * The callers_changed triggers also mark their transaction (`forgekit.callers_changed`, a setting local to it), so
 * that a write asks exactly whether it changed a user or a token (src/auth/caller.ts `callersChangedIn`):
 * PostgreSQL's own per-transaction counts also hold a session's earlier transactions until it flushes them.
 */
export class Migration20261126000001_callers_changed_flag extends Migration {

  override name = 'Migration20261126000001_callers_changed_flag';

  override up(): void | Promise<void> {
    for (const table of ['users', 'access_tokens']) {
      this.addSql(`create or replace function "${table}_callers_changed_fn"() returns trigger as \$\$ begin perform pg_notify('forgekit_callers_changed', ''); perform set_config('forgekit.callers_changed', 'on', true); return null; end; \$\$ language plpgsql;`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['users', 'access_tokens']) {
      this.addSql(`create or replace function "${table}_callers_changed_fn"() returns trigger as \$\$ begin perform pg_notify('forgekit_callers_changed', ''); return null; end; \$\$ language plpgsql;`);
    }
  }

}

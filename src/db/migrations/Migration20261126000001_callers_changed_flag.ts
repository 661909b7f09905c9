import { Migration } from '@mikro-orm/migrations';
import { replaceTriggerFunction } from './statements.js';

/**
 * The callers_changed triggers also mark their transaction (`forgekit.callers_changed`, a setting local to it), so
 * that a write asks exactly whether it changed a user or a token (src/auth/caller.ts `callersChangedIn`):
 * PostgreSQL's own per-transaction counts also hold a session's earlier transactions until it flushes them.
 */
export class Migration20261126000001_callers_changed_flag extends Migration {
  override name = 'Migration20261126000001_callers_changed_flag';

  override up(): void | Promise<void> {
    for (const table of ['users', 'access_tokens']) {
      replaceTriggerFunction(this, table, {
        name: 'callers_changed',
        body: `perform pg_notify('forgekit_callers_changed', ''); perform set_config('forgekit.callers_changed', 'on', true); return null;`,
      });
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['users', 'access_tokens']) {
      replaceTriggerFunction(this, table, {
        name: 'callers_changed',
        body: `perform pg_notify('forgekit_callers_changed', ''); return null;`,
      });
    }
  }
}

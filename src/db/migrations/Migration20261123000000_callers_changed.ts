import { Migration } from '@mikro-orm/migrations';
import { createTrigger, dropTrigger, type Trigger } from './statements.js';

/** The triggers as they were made here: a NOTIFY only (Migration20261126000001_callers_changed_flag adds a mark). */
const callersChanged: Trigger = {
  name: 'callers_changed',
  timing: 'after',
  events: ['update', 'delete'],
  forEach: 'statement',
  body: `perform pg_notify('forgekit_callers_changed', ''); return null;`,
};

/** Tells every process when users or tokens change: each keeps the callers it authenticated (src/auth/caller.ts). */
export class Migration20261123000000_callers_changed extends Migration {
  override name = 'Migration20261123000000_callers_changed';

  override up(): void | Promise<void> {
    for (const table of ['users', 'access_tokens']) createTrigger(this, table, callersChanged);
  }

  override down(): void | Promise<void> {
    for (const table of ['access_tokens', 'users']) dropTrigger(this, table, 'callers_changed');
  }
}

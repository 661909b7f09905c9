import type { EventRule } from '../events/bus.js';
import type { EventKind } from '../events/kinds.js';
import type { Context } from './context.js';

/**
 * A rule of the record (src/events/bus.ts) as the services write one: the kinds of event it follows, and what it does
 * in the transaction of the write that recorded one, as that write's caller. Its failure fails the write.
 */
export interface Rule {
  kinds: readonly EventKind[];
  run: EventRule<Context>;
}

export const rule = <K extends EventKind>(kinds: readonly K[], run: EventRule<Context, K>): Rule => ({
  kinds,
  run: run as unknown as EventRule<Context>,
});

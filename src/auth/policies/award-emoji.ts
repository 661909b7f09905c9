import type { Caller } from '../caller.js';
import { definePolicy } from '../policy.js';
import { readsNoteable, type NoteableInScope } from './note.js';

/** An emoji awarded to an issue, a merge request or a note on one, as its scope loaded it. */
export interface AwardInScope {
  /** The work item it is on (or whose note it is on). */
  awardable: NoteableInScope;
  award: { userId: number };
}

/**
 * Who may take an award back (the original's award emoji API): whoever awarded it, and administrators, while they
 * may read what it is on; hidden from those who may not.
 */
export const awardEmojiPolicy = definePolicy({
  abilities: ['destroy_award_emoji'],
  conditions: {
    reads_awardable: (caller: Caller, scoped: AwardInScope) => readsNoteable(caller, scoped.awardable),
    awarder: (caller: Caller, scoped: AwardInScope) => caller.user?.id === scoped.award.userId,
    admin: (caller: Caller) => caller.user?.admin === true,
  },
  rules: [{ when: (is) => is.reads_awardable && (is.awarder || is.admin), enable: ['destroy_award_emoji'] }],
  hidden: { abilities: 'all', when: (is) => !is.reads_awardable },
});

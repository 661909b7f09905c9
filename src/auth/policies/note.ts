import type { Caller } from '../caller.js';
import { ACCESS_LEVELS } from '../levels.js';
import { definePolicy } from '../policy.js';
import { issuePolicy, type IssueInScope } from './issue.js';
import { mergeRequestPolicy, type MergeRequestInScope } from './merge-request.js';

/** What a note is on: an issue or a merge request, as its scope loaded it. */
export type NoteableInScope = { kind: 'Issue'; scope: IssueInScope } | { kind: 'MergeRequest'; scope: MergeRequestInScope };

/** A note a call named, with what it is on. */
export interface NoteInScope {
  noteable: NoteableInScope;
  note: { authorId: number | null; system: boolean };
}

const user = (caller: Caller) => caller.user?.id;

/** Whether the caller may read an issue or a merge request (what a note or an award is on). */
export const readsNoteable = (caller: Caller, noteable: NoteableInScope) =>
  noteable.kind === 'Issue'
    ? issuePolicy.allows(caller, 'read_issue', noteable.scope)
    : mergeRequestPolicy.allows(caller, 'read_merge_request', noteable.scope);

/**
 * Who may read a note on an issue or a merge request (whoever reads what it is on), and change or delete it (the
 * original's NotePolicy `admin_note`): its author and the project's maintainers and administrators, while they may
 * read what it is on; system notes, which record changes, never; nothing in an archived project.
 */
export const notePolicy = definePolicy({
  abilities: ['read_note', 'admin_note'],
  conditions: {
    reads_noteable: (caller: Caller, scoped: NoteInScope) => readsNoteable(caller, scoped.noteable),
    author: (caller: Caller, scoped: NoteInScope) => user(caller) !== undefined && scoped.note.authorId === user(caller),
    maintainer: (_caller: Caller, scoped: NoteInScope) => scoped.noteable.scope.project.accessLevel >= ACCESS_LEVELS.maintainer,
    admin: (caller: Caller) => caller.user?.admin === true,
    system: (_caller: Caller, scoped: NoteInScope) => scoped.note.system,
    archived: (_caller: Caller, scoped: NoteInScope) => scoped.noteable.scope.project.project.archived === true,
  },
  rules: [
    { when: (is) => is.reads_noteable, enable: ['read_note'] },
    { when: (is) => is.reads_noteable && (is.author || is.maintainer || is.admin), enable: ['admin_note'] },
    { when: (is) => is.system || is.archived, prevent: ['admin_note'] },
  ],
  hidden: { abilities: 'all', when: (is) => !is.reads_noteable },
});

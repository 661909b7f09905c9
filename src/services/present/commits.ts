import type { Commit, Signature } from '../../git/repository.js';
import type { Commit as CommitShape } from '../../schemas/commits.js';

/** `2026-11-24T10:15:00.000+01:00`: an instant as its author wrote it, with their offset from UTC. */
export function dateWithOffset(signature: Pick<Signature, 'timestamp' | 'offsetMinutes'>): string {
  const local = new Date((signature.timestamp + signature.offsetMinutes * 60) * 1000).toISOString().slice(0, -1);
  const offset = Math.abs(signature.offsetMinutes);
  const sign = signature.offsetMinutes < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.floor(offset / 60)).padStart(2, '0')}:${String(offset % 60).padStart(2, '0')}`;
}

/**
 * A commit's title, as the original makes it: its first line, or (a first line of 100 characters or more) the
 * first 80 of them and an ellipsis.
 */
export function commitTitle(message: string): string {
  const line = message.split('\n', 1)[0].trimEnd();
  return line.length < 100 ? line : `${[...line].slice(0, 80).join('')}…`;
}

/** A commit as every answer shows it; `projectUrl` is the project's `web_url`. */
export function presentCommit(commit: Commit, projectUrl: string): CommitShape {
  const committed = dateWithOffset(commit.committer);
  return {
    id: commit.oid,
    short_id: commit.oid.slice(0, 8),
    title: commitTitle(commit.message),
    message: commit.message,
    author_name: commit.author.name,
    author_email: commit.author.email,
    authored_date: dateWithOffset(commit.author),
    committer_name: commit.committer.name,
    committer_email: commit.committer.email,
    committed_date: committed,
    created_at: committed,
    parent_ids: commit.parents,
    web_url: `${projectUrl}/commit/${commit.oid}`,
  };
}

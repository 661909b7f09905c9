/**
 * What the repository layer refuses, in its own terms: services turn each into the original service's answer.
 * Any other error from here is unexpected (a damaged repository, a full disk).
 */
export class GitError extends Error {
  override readonly name: string = 'GitError';
}

/**
 * The repository the database names is not in its storage (a storage not mounted, a directory not restored
 * with the database): its reads and writes fail rather than find an empty repository, or start a new history.
 */
export class RepositoryMissingError extends GitError {
  override readonly name = 'RepositoryMissingError';
  /** `where`: the repository's directory, or which project's and why. */
  constructor(readonly where: string) {
    super(`the repository ${where} is missing`);
  }
}

/** A reference did not hold what the write expected: it moved meanwhile, or exists, or does not. */
export class ReferenceChangedError extends GitError {
  override readonly name = 'ReferenceChangedError';
  constructor(
    readonly reference: string,
    readonly expected: string | null,
    readonly found: string | null,
  ) {
    super(`${reference} is at ${found ?? 'nothing'}, not ${expected ?? 'nothing'}`);
  }
}

/** Another writer (a native git beside forgekit) holds the reference's lock file. */
export class ReferenceLockedError extends GitError {
  override readonly name = 'ReferenceLockedError';
  constructor(readonly reference: string) {
    super(`${reference} is locked by another writer`);
  }
}

/** A reference in the way of another: `a` and `a/b` cannot both exist. */
export class ReferenceConflictError extends GitError {
  override readonly name = 'ReferenceConflictError';
  constructor(readonly reference: string) {
    super(`${reference} conflicts with an existing reference`);
  }
}

/** Why an edit of the tree (a file write, a batch commit's action) cannot be applied. */
export type EditProblem =
  /** The path climbs out of the repository (a `..` part). */
  | 'traversal'
  /** The path is not one a tree can hold (`.`, `.git`, empty parts, too long). */
  | 'invalid_path'
  /** A file (or a directory) is already there. */
  | 'exists'
  /** No file there. */
  | 'missing'
  /** A directory is there where a file would go, or a file where a directory would. */
  | 'directory_conflict'
  /** The edit leaves the tree as it was. */
  | 'unchanged';

export class EditError extends GitError {
  override readonly name = 'EditError';
  constructor(
    readonly problem: EditProblem,
    readonly path: string,
  ) {
    super(`${problem}: ${path}`);
  }
}

/** A three-way merge (a cherry-pick) that cannot be made without a person's decision. */
export class MergeConflictError extends GitError {
  override readonly name = 'MergeConflictError';
  constructor(readonly paths: string[]) {
    super(`conflicts in ${paths.join(', ')}`);
  }
}

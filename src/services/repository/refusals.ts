import { BadRequestError } from '../../errors.js';
import { EditError, ReferenceChangedError, ReferenceConflictError, ReferenceLockedError } from '../../git/errors.js';

/**
 * How the original refuses repository writes: 400 (and a few other statuses, where said) with its own words,
 * which (unlike most of its errors) do not start with the status. Written once here: the services answer with them, and the tests know them
 * by these names (test/robustness.test.ts accepts exactly these unnumbered messages).
 */
export const REFUSALS = {
  branchNameInvalid: 'Branch name is invalid',
  branchExists: 'Branch already exists',
  invalidReference: 'Invalid reference name',
  removeDefaultBranch: 'The default branch of a project cannot be deleted.',
  deleteProtectedBranch:
    'You are not allowed to delete protected branches from this project. Only a project master or owner can delete a protected branch.',
  pushNotAllowed: 'You are not allowed to push into this branch',
  notOnBranch: 'You can only create or edit files when you are on a branch',
  invalidStartSha: 'Invalid start sha',
  invalidPath: 'file_path should be a valid file path',
  pathTraversal: 'Path cannot include directory traversal',
  fileExists: 'A file with this name already exists',
  fileMissing: "A file with this name doesn't exist",
  directoryExists: 'A directory with this name already exists',
  unchanged: 'No changes were made: the content is the same as the current content',
  fileChanged: 'You are attempting to update a file that has changed since you started editing it.',
  actionFileChanged: (path: string) => `The file has changed since you started editing it: ${path}`,
  // A commit status's state machine (POST /projects/:id/statuses/:sha), in the words of the library the original uses.
  enqueueFromPending: 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")',
  enqueueFromRunning: 'Cannot transition status via :enqueue from :running (Reason(s): Status cannot transition via "enqueue")',
  runFromRunning: 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")',
  noteBlank: 'Failed to save note {:note=>["can\'t be blank"]}',
  // Tags and releases: a failed tag creation (405 in the tags API, 400 in the releases API), 404 and 409 of releases.
  tagNameInvalid: 'Tag name invalid',
  tagExists: (name: string) => `Tag ${name} already exists`,
  changeExistingTags: 'You are not allowed to change existing tags on this project.',
  targetInvalid: (ref: string) => `Target ${ref} is invalid`,
  tagMissing: 'Tag does not exist',
  releaseExists: 'Release already exists',
  releaseMissing: 'Release does not exist',
  refMissing: 'Ref is not specified',
  releaseParamsEmpty: 'params is empty',
  protectionExists: (name: string) => `Protected branch '${name}' already exists`,
  branchTaken: (branch: string) => `A branch called '${branch}' already exists. Switch to that branch in order to make changes`,
  referenceMoved: (name: string) =>
    `Could not update ${name}: it was changed by another write during this one. Please refresh and try again.`,
  referenceInTheWay: (name: string) => `${name} conflicts with an existing branch or tag`,
  // A cherry-pick that conflicts or changes nothing, with the line break and indentation of the original's source.
  cherryPickFailed:
    'Sorry, we cannot cherry-pick this commit automatically.\n                   This commit may already have been cherry-picked, ' +
    'or a more recent commit may have updated some of its content.',
} as const;

const EDIT_REFUSALS: Record<EditError['problem'], string> = {
  invalid_path: REFUSALS.invalidPath,
  traversal: REFUSALS.pathTraversal,
  exists: REFUSALS.fileExists,
  missing: REFUSALS.fileMissing,
  directory_conflict: REFUSALS.directoryExists,
  unchanged: REFUSALS.unchanged,
};

const shortName = (reference: string) => reference.replace(/^refs\/(heads|tags)\//, '');

/** What a failed repository write answers; anything but the repository layer's refusals passes through unchanged. */
export function writeRefusal(error: unknown): unknown {
  if (error instanceof EditError) return new BadRequestError(EDIT_REFUSALS[error.problem]);
  if (error instanceof ReferenceChangedError || error instanceof ReferenceLockedError)
    return new BadRequestError(REFUSALS.referenceMoved(shortName(error.reference)));
  if (error instanceof ReferenceConflictError) return new BadRequestError(REFUSALS.referenceInTheWay(shortName(error.reference)));
  return error;
}

/** Every refusal as a pattern of the messages it can make (its interpolations any text). */
export function refusalPatterns(): RegExp[] {
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.values(REFUSALS).map((refusal) =>
    typeof refusal === 'string'
      ? new RegExp(`^${escapeRegExp(refusal)}$`)
      : new RegExp(`^${refusal('\u0000').split('\u0000').map(escapeRegExp).join('.*')}$`, 's'),
  );
}

import { BadRequestError } from '../errors.js';
import { EditError, ReferenceChangedError, ReferenceConflictError, ReferenceLockedError } from '../git/errors.js';

/**
 * How the original refuses repository writes: 400 with its own words, which (unlike most of its errors) do not
 * start with the status. Written once here: the services answer with them, and the tests know them by these
 * names (test/robustness.test.ts accepts exactly these unnumbered messages).
 */
export const REFUSALS = {
  branchNameInvalid: 'Branch name is invalid',
  branchExists: 'Branch already exists',
  invalidReference: 'Invalid reference name',
  removeDefaultBranch: 'Cannot remove HEAD branch',
  pushNotAllowed: 'You are not allowed to push into this branch',
  notOnBranch: 'You can only create or edit files when you are on a branch',
  invalidStartSha: 'Invalid start sha',
  invalidPath: 'file_path should be a valid file path',
  fileExists: 'A file with this name already exists',
  fileMissing: "A file with this name doesn't exist",
  directoryExists: 'A directory with this name already exists',
  unchanged: 'No changes were made: the content is the same as the current content',
  fileChanged: 'You are attempting to update a file that has changed since you started editing it.',
  protectionExists: (name: string) => `Protected branch '${name}' already exists`,
  branchTaken: (branch: string) => `A branch called '${branch}' already exists. Switch to that branch in order to make changes`,
  referenceMoved: (name: string) => `Could not update ${name}: it was changed by another write during this one. Please refresh and try again.`,
  referenceInTheWay: (name: string) => `${name} conflicts with an existing branch or tag`,
} as const;

const EDIT_REFUSALS: Record<EditError['problem'], string> = {
  invalid_path: REFUSALS.invalidPath,
  exists: REFUSALS.fileExists,
  missing: REFUSALS.fileMissing,
  directory_conflict: REFUSALS.directoryExists,
  unchanged: REFUSALS.unchanged,
};

const shortName = (reference: string) => reference.replace(/^refs\/(heads|tags)\//, '');

/** What a failed repository write answers; anything but the repository layer's refusals passes through unchanged. */
export function writeRefusal(error: unknown): unknown {
  if (error instanceof EditError) return new BadRequestError(EDIT_REFUSALS[error.problem]);
  if (error instanceof ReferenceChangedError || error instanceof ReferenceLockedError) return new BadRequestError(REFUSALS.referenceMoved(shortName(error.reference)));
  if (error instanceof ReferenceConflictError) return new BadRequestError(REFUSALS.referenceInTheWay(shortName(error.reference)));
  return error;
}

/** Every refusal as a pattern of the messages it can make (its interpolations any text). */
export function refusalPatterns(): RegExp[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.values(REFUSALS).map((refusal) =>
    typeof refusal === 'string' ? new RegExp(`^${escape(refusal)}$`) : new RegExp(`^${refusal('\u0000').split('\u0000').map(escape).join('.*')}$`, 's'),
  );
}

import { EditError } from './errors.js';
import type { Repository, TreeEntry } from './repository.js';

/** One change of a commit: what the batch commit's `actions[]` and the file endpoints ask for. */
export type FileAction =
  | { action: 'create' | 'update'; path: string; content: Uint8Array }
  | { action: 'delete'; path: string }
  | { action: 'move'; path: string; previousPath: string; content?: Uint8Array }
  | { action: 'chmod'; path: string; executable: boolean };

const FILE_MODE = '100644';
const EXECUTABLE_MODE = '100755';
const TREE_MODE = '040000';

/** The longest path a file may have, and the longest name of one of its parts (in bytes, as file systems count). */
export const MAX_PATH_LENGTH = 4096;
const MAX_NAME_BYTES = 255;

/**
 * What is wrong with a file path, or null: a `..` part climbs out of the repository (`traversal`); a tree
 * cannot hold a path that is empty or too long, or has an empty or `.` part, a `.git` part (native git refuses
 * to check those out) or a NUL (`invalid_path`).
 */
export function filePathProblem(path: string): 'traversal' | 'invalid_path' | null {
  const parts = path.split('/');
  if (parts.includes('..')) return 'traversal';
  if (path.length === 0 || path.length > MAX_PATH_LENGTH || path.includes('\0')) return 'invalid_path';
  const valid = parts.every(
    (part) => part !== '' && part !== '.' && part.toLowerCase() !== '.git' && Buffer.byteLength(part) <= MAX_NAME_BYTES,
  );
  return valid ? null : 'invalid_path';
}

export const isValidFilePath = (path: string) => filePathProblem(path) === null;

const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * A tree being edited: directories are read when first touched and written again only when something in them
 * changed. Actions apply one after the other, each seeing the ones before it, as a batch commit's do.
 */
class TreeEdit {
  /** Directory path ('' for the root) → its entries by name, for the directories touched. */
  private readonly directories = new Map<string, Map<string, TreeEntry>>();
  private readonly changed = new Set<string>();

  constructor(
    private readonly repo: Repository,
    private readonly baseTree: string | null,
  ) {}

  /** The entries of the directory at `path`, or null when there is no directory there. */
  private async directory(path: string): Promise<Map<string, TreeEntry> | null> {
    const loaded = this.directories.get(path);
    if (loaded) return loaded;
    let oid: string | null;
    if (path === '') oid = this.baseTree;
    else {
      const parent = await this.directory(parentOf(path));
      const entry = parent?.get(nameOf(path));
      if (!entry) return null;
      if (entry.type !== 'tree') return null;
      oid = entry.oid;
    }
    // Copies: the repository's kept trees are shared and never change.
    const entries = new Map((oid ? await this.repo.readTree(oid) : []).map((entry) => [entry.name, { ...entry }]));
    this.directories.set(path, entries);
    return entries;
  }

  async entry(path: string): Promise<TreeEntry | null> {
    return (await this.directory(parentOf(path)))?.get(nameOf(path)) ?? null;
  }

  /** The file at `path`, or EditError `missing`. */
  async file(path: string): Promise<TreeEntry> {
    const entry = await this.entry(path);
    if (entry?.type !== 'blob') throw new EditError('missing', path);
    return entry;
  }

  /** Puts a file at `path`, making its directories; a file where a directory must go, or a directory at `path`, is a conflict. */
  async put(path: string, oid: string, mode: string): Promise<void> {
    const parts = path.split('/');
    for (let end = 1; end < parts.length; end++) {
      const directoryPath = parts.slice(0, end).join('/');
      const parent = (await this.directory(parentOf(directoryPath)))!;
      const existing = parent.get(nameOf(directoryPath));
      if (existing && existing.type !== 'tree') throw new EditError('directory_conflict', path);
      if (!existing) {
        parent.set(nameOf(directoryPath), { name: nameOf(directoryPath), mode: TREE_MODE, oid: '', type: 'tree' });
        this.directories.set(directoryPath, new Map());
        this.touch(parentOf(directoryPath));
      }
    }
    const directory = (await this.directory(parentOf(path)))!;
    if (directory.get(nameOf(path))?.type === 'tree') throw new EditError('directory_conflict', path);
    directory.set(nameOf(path), { name: nameOf(path), mode, oid, type: 'blob' });
    this.touch(parentOf(path));
  }

  /** Takes the file at `path` out; directories left empty go too, as git keeps no empty directory. */
  async remove(path: string): Promise<void> {
    let current = path;
    for (;;) {
      const parentPath = parentOf(current);
      const parent = (await this.directory(parentPath))!;
      parent.delete(nameOf(current));
      this.touch(parentPath);
      if (parentPath === '' || parent.size > 0) return;
      current = parentPath;
    }
  }

  /** Marks a directory and those above it as changed. */
  private touch(path: string): void {
    for (let current: string | null = path; current !== null; current = current === '' ? null : parentOf(current))
      this.changed.add(current);
  }

  /** Writes the changed directories, deepest first, and answers the new root tree. */
  async write(path = ''): Promise<string> {
    const entries = this.directories.get(path);
    // Only the root is ever asked for unchanged: then it is the base tree.
    if (!entries || !this.changed.has(path)) return this.baseTree ?? this.repo.writeTree([]);
    for (const entry of entries.values()) {
      if (entry.type !== 'tree') continue;
      const childPath = path === '' ? entry.name : `${path}/${entry.name}`;
      if (this.changed.has(childPath)) entry.oid = await this.write(childPath);
    }
    return this.repo.writeTree([...entries.values()]);
  }
}

/**
 * The tree `baseTree` (null: none yet) with `actions` applied in order, written: its object ID. Blobs are
 * written as they come; an action that cannot apply throws EditError, leaving only unreferenced objects behind.
 */
export async function applyActions(repo: Repository, baseTree: string | null, actions: FileAction[]): Promise<string> {
  const edit = new TreeEdit(repo, baseTree);
  for (const action of actions) {
    const problem = filePathProblem(action.path);
    if (problem) throw new EditError(problem, action.path);
    switch (action.action) {
      case 'create': {
        if (await edit.entry(action.path)) throw new EditError('exists', action.path);
        await edit.put(action.path, await repo.writeBlob(action.content), FILE_MODE);
        break;
      }
      case 'update': {
        const existing = await edit.file(action.path);
        await edit.put(action.path, await repo.writeBlob(action.content), existing.mode);
        break;
      }
      case 'delete': {
        await edit.file(action.path);
        await edit.remove(action.path);
        break;
      }
      case 'move': {
        const previousProblem = filePathProblem(action.previousPath);
        if (previousProblem) throw new EditError(previousProblem, action.previousPath);
        const existing = await edit.file(action.previousPath);
        if (action.previousPath !== action.path && (await edit.entry(action.path))) throw new EditError('exists', action.path);
        await edit.remove(action.previousPath);
        await edit.put(action.path, action.content ? await repo.writeBlob(action.content) : existing.oid, existing.mode);
        break;
      }
      case 'chmod': {
        const existing = await edit.file(action.path);
        await edit.put(action.path, existing.oid, action.executable ? EXECUTABLE_MODE : FILE_MODE);
        break;
      }
    }
  }
  return edit.write();
}

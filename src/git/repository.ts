import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { openBlob, type BlobStream } from './blob-stream.js';
import { RepositoryMissingError } from './errors.js';
import { CommitGraph, writeCommitGraph, type CommitNode, type KnownCommits } from './commit-graph.js';
import { gitFs, isoGit } from './fs.js';
import { LruMap } from './lru.js';
import {
  CorruptObjectError,
  findTreeEntry,
  MissingObjectError,
  ObjectReader,
  type PackCache,
  parseTree,
  type GitObject,
  type RawTreeEntry,
} from './object-reader.js';
import {
  parseAnnotatedTag,
  parseCommit,
  treeEntries,
  typeOfMode,
  type AnnotatedTag,
  type Commit,
  type EntryType,
  type Signature,
  type TreeEntry,
} from './parse.js';
import {
  canonicalMode,
  commitContent,
  commitMessage,
  readsBackAsWritten,
  treeContent,
  writeLooseObject,
  writtenPerson,
} from './objects.js';
import {
  isValidReferenceName,
  listReferences,
  readReference,
  readSymbolicReference,
  updateReference,
  writeSymbolicReference,
} from './refs.js';

export type { AnnotatedTag, Commit, CommitNode, EntryType, Signature, TreeEntry };

/** A reference and the object it holds: a branch's commit; a tag's commit, and its annotation when it has one. */
export interface Reference {
  name: string;
  oid: string;
}

export const BRANCH_PREFIX = 'refs/heads/';
export const TAG_PREFIX = 'refs/tags/';

const FULL_OID = /^[0-9a-f]{40}$/;
const SHORT_OID = /^[0-9a-f]{4,39}$/;

/** How many commits walks read from their objects before the commit-graph is written again to list them. */
const UNLISTED_BEFORE_REWRITE = 200;
/** How often a repository looks whether its commit-graph changed (git gc writes a new one). */
const GRAPH_CHECK_MS = 5000;
/** How many parsed commits and trees one repository keeps. */
const KEPT_COMMITS = 50_000;
const KEPT_TREES = 20_000;
/** How many annotated tags (tag lists read every tag's) one repository keeps. */
const KEPT_TAGS = 10_000;

const personOf = (signature: Signature) => ({
  name: signature.name,
  email: signature.email,
  timestamp: signature.timestamp,
  timezoneOffset: signature.offsetMinutes === 0 ? 0 : -signature.offsetMinutes,
});

/** No such object (forgekit's reader), or isomorphic-git's "no such object or reference". */
const isNotFound = (error: unknown) => error instanceof MissingObjectError || (error as { code?: string }).code === 'NotFoundError';

/**
 * One bare repository: reads its objects through one ObjectReader (pack indexes read once, packs kept open, a
 * what is read of packs shared by the store's repositories) and a cache of parsed commits and trees (objects never
 * change, so what is kept is never stale); writes objects, and moves references by compare-and-swap (refs.ts).
 * References are always read from disk.
 */
export class Repository {
  private readonly commits = new LruMap<string, Commit>(KEPT_COMMITS);
  private readonly annotatedTags = new LruMap<string, AnnotatedTag>(KEPT_TAGS);
  private readonly trees = new LruMap<string, readonly TreeEntry[]>(KEPT_TREES);
  private readonly rawTrees = new LruMap<string, Buffer>(KEPT_TREES);
  private readonly objects: ObjectReader;
  /** Commits walks read from their objects since the commit-graph was last written; a graph write under way. */
  private unlistedReads = 0;
  private rewriting?: Promise<void>;
  /** git's commit-graph, when the repository has one: read again when it changed, looked at no more than every few seconds. */
  private graph?: { read: Promise<CommitGraph | null>; checkedAt: number; mtimeMs: number };

  /** `packCache`: what the store's repositories keep of their packs. */
  constructor(
    readonly gitdir: string,
    packCache?: PackCache,
  ) {
    this.objects = new ObjectReader(gitdir, packCache);
  }

  /** A blob as a stream (see openBlob), or null when `oid` names no blob. */
  openBlob(oid: string): Promise<BlobStream | null> {
    return openBlob(this.objects, oid);
  }

  /** Lets go of the packs it holds open (the store forgets it); reads still under way finish. */
  release(): void {
    this.objects.release();
  }

  /** The object whole; null when it is not there (`failed` asks whether the repository itself is). */
  private async readObject(oid: string): Promise<GitObject | null> {
    return this.objects.read(oid).catch((error: unknown) => {
      if (error instanceof MissingObjectError) return null;
      throw error;
    });
  }

  /** The object, of the type wanted; a missing one throws (RepositoryMissingError when the repository is). */
  private async readTyped(oid: string, type: GitObject['type']): Promise<Buffer> {
    const read = await this.readObject(oid);
    if (!read) return this.failed(new MissingObjectError(oid));
    if (read.type !== type) throw new CorruptObjectError(`${oid} is a ${read.type}, not a ${type}`);
    return read.content;
  }

  /**
   * Throws RepositoryMissingError when the repository is not there (every repository has its HEAD). Asked
   * where a read finds nothing and before a reference moves: a missing repository must not read as an empty
   * one, nor be made anew by a write.
   */
  async assertPresent(): Promise<void> {
    const found = await stat(join(this.gitdir, 'HEAD')).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return false;
        throw error;
      },
    );
    if (!found) throw new RepositoryMissingError(this.gitdir);
  }

  /** `found`, once a value that is nothing (null, an empty list) is known not to come from a missing repository. */
  private async checked<T>(found: T): Promise<T> {
    if (found === null || (Array.isArray(found) && found.length === 0)) await this.assertPresent();
    return found;
  }

  /** A read that failed: a missing repository says so rather than "no such object". */
  private async failed(error: unknown): Promise<never> {
    if (isNotFound(error)) await this.assertPresent();
    throw error;
  }

  // ---- references ----

  /** Every branch (short name) with its commit. */
  async branches(): Promise<Reference[]> {
    return this.references(BRANCH_PREFIX);
  }

  /** Every tag (short name) with the object it holds: a commit, or an annotated tag object. */
  async tags(): Promise<Reference[]> {
    return this.references(TAG_PREFIX);
  }

  private async references(prefix: string): Promise<Reference[]> {
    return this.checked([...(await listReferences(this.gitdir, prefix))].map(([name, oid]) => ({ name, oid })));
  }

  /** The commit a branch holds, or null. */
  async branch(name: string): Promise<string | null> {
    return this.checked(isValidReferenceName(name) ? await readReference(this.gitdir, BRANCH_PREFIX + name) : null);
  }

  /** The object a tag holds (a commit, or an annotated tag object), or null. */
  async tag(name: string): Promise<string | null> {
    return this.checked(isValidReferenceName(name) ? await readReference(this.gitdir, TAG_PREFIX + name) : null);
  }

  /** The branch HEAD names, whether or not it has a commit yet. */
  async headBranch(): Promise<string | null> {
    const target = await this.checked(await readSymbolicReference(this.gitdir, 'HEAD'));
    return target?.startsWith(BRANCH_PREFIX) ? target.slice(BRANCH_PREFIX.length) : null;
  }

  /** Points HEAD at a branch: the repository's default branch, which clones check out. */
  async setHeadBranch(name: string): Promise<void> {
    await this.assertPresent();
    await writeSymbolicReference(this.gitdir, 'HEAD', BRANCH_PREFIX + name);
  }

  /**
   * Moves a reference (`refs/heads/<branch>`, `refs/tags/<tag>`) from `expected` (null: it must not exist) to
   * `next` (null: deletes it), or throws ReferenceChangedError and changes nothing. The caller holds the
   * repository's lock, and has written every object `next` needs.
   */
  async updateReference(name: string, expected: string | null, next: string | null): Promise<void> {
    await this.assertPresent();
    await updateReference(this.gitdir, name, expected, next);
  }

  /**
   * The commit a revision names, as git reads one: a full object ID, HEAD, a reference (`refs/…`, then a tag,
   * then a branch of that name), or an abbreviated object ID; an annotated tag is followed to its commit.
   * Null when it names no commit.
   */
  async resolveCommit(revision: string): Promise<string | null> {
    return this.checked(await this.resolveCommitIn(revision));
  }

  private async resolveCommitIn(revision: string): Promise<string | null> {
    if (FULL_OID.test(revision)) return this.peelToCommit(revision);
    if (revision === 'HEAD') return this.peelToCommit(await readReference(this.gitdir, 'HEAD'));
    if (isValidReferenceName(revision)) {
      const candidates = [
        ...(revision.startsWith('refs/') ? [revision] : []),
        `refs/${revision}`,
        TAG_PREFIX + revision,
        BRANCH_PREFIX + revision,
      ];
      for (const name of candidates) {
        const oid = await readReference(this.gitdir, name);
        if (oid) return this.peelToCommit(oid);
      }
    }
    if (SHORT_OID.test(revision)) {
      const git = await isoGit();
      const oid = await git.expandOid({ fs: gitFs, gitdir: this.gitdir, oid: revision }).catch((error: unknown) => {
        // Unknown, or ambiguous: names nothing.
        if (isNotFound(error) || (error as { code?: string }).code === 'AmbiguousError') return null;
        throw error;
      });
      return this.peelToCommit(oid);
    }
    return null;
  }

  /** The commit an object is or (an annotated tag, followed) points at; null for anything else or nothing. */
  async peelToCommit(oid: string | null, depth = 0): Promise<string | null> {
    if (oid === null || depth > 10) return null;
    if (this.commits.get(oid)) return oid;
    const kept = this.annotatedTags.get(oid);
    if (kept) return this.peelToCommit(kept.object, depth + 1);
    const read = FULL_OID.test(oid) ? await this.readObject(oid) : null;
    if (!read) return null;
    if (read.type === 'commit') {
      this.commits.set(oid, parseCommit(oid, read.content));
      return oid;
    }
    if (read.type === 'tag') return this.peelToCommit(this.keepTag(parseAnnotatedTag(oid, read.content)).object, depth + 1);
    return null;
  }

  // ---- objects ----

  /** A commit by its full object ID (a missing one, or another kind of object, throws). */
  async readCommit(oid: string): Promise<Commit> {
    const kept = this.commits.get(oid);
    if (kept) return kept;
    const parsed = parseCommit(oid, await this.readTyped(oid, 'commit'));
    this.commits.set(oid, parsed);
    return parsed;
  }

  /**
   * What a history walk needs of a commit (tree, parents, committer time): from git's commit-graph when it lists
   * the commit, without reading the commit's object; from the object otherwise.
   */
  async commitNode(oid: string): Promise<CommitNode> {
    const node = (await this.commitGraph())?.node(oid);
    if (node) return node;
    const commit = await this.readCommit(oid);
    if (++this.unlistedReads >= UNLISTED_BEFORE_REWRITE && !this.rewriting) void this.writeCommitGraph().catch(() => {});
    return { oid, tree: commit.tree, parents: commit.parents, time: commit.committer.timestamp };
  }

  /**
   * Writes the repository's commit-graph (after an import or a fork), or waits for the write under way. Walks
   * that read many commits it does not list (new commits since it was written, or a repository that has none
   * yet) start one in the background; one at a time either way. A graph that could not be written leaves walks
   * reading objects, as before: it is an index, never the only copy of anything.
   */
  writeCommitGraph(known?: KnownCommits): Promise<void> {
    if (!this.rewriting) {
      this.unlistedReads = 0;
      this.rewriting = writeCommitGraph(this, known).finally(() => {
        this.rewriting = undefined;
        // Read at the next walk, rather than once the periodic look notices it.
        this.graph = undefined;
      });
    }
    return this.rewriting;
  }

  /** git's commit-graph, when the repository has one that forgekit reads. */
  async commitGraph(): Promise<CommitGraph | null> {
    const now = Date.now();
    if (!this.graph || now - this.graph.checkedAt > GRAPH_CHECK_MS) {
      const mtimeMs = await stat(join(this.gitdir, 'objects', 'info', 'commit-graph')).then(
        (found) => found.mtimeMs,
        () => 0,
      );
      if (!this.graph || mtimeMs !== this.graph.mtimeMs)
        this.graph = { read: mtimeMs ? CommitGraph.open(this.gitdir) : Promise.resolve(null), checkedAt: now, mtimeMs };
      else this.graph.checkedAt = now;
    }
    return this.graph.read;
  }

  /** A tree's entries, in git's order. */
  async readTree(oid: string): Promise<readonly TreeEntry[]> {
    const kept = this.trees.get(oid);
    if (kept) return kept;
    // Frozen: kept and shared by every reader.
    const entries = Object.freeze(treeEntries(parseTree(await this.treeBytes(oid))));
    this.trees.set(oid, entries);
    this.rawTrees.delete(oid);
    return entries;
  }

  /** A tree object's bytes, kept: a path's history looks into the same trees again, one entry of each. */
  private async treeBytes(oid: string): Promise<Buffer> {
    let bytes = this.treeBytesInMemory(oid);
    if (!bytes) this.rawTrees.set(oid, (bytes = await this.readTyped(oid, 'tree')));
    return bytes;
  }

  /** A tree's bytes when kept, or in memory to be read without a turn of the event loop (then kept). */
  private treeBytesInMemory(oid: string): Buffer | undefined {
    const kept = this.rawTrees.get(oid);
    if (kept) return kept;
    const inMemory = this.objects.readInMemory(oid);
    if (inMemory?.type !== 'tree') return undefined;
    this.rawTrees.set(oid, inMemory.content);
    return inMemory.content;
  }

  /** A blob's bytes. */
  async readBlob(oid: string): Promise<Uint8Array> {
    return this.readTyped(oid, 'blob');
  }

  /**
   * An object's type and content exactly as stored (its ID is their hash), or null when it is not there: what
   * copying objects into another repository writes (src/git/transfer.ts), where readCommit and readTree would parse.
   */
  async readRawObject(oid: string): Promise<GitObject | null> {
    return this.checked(FULL_OID.test(oid) ? await this.readObject(oid) : null);
  }

  /** Whether the object exists, and which kind it is. */
  async objectType(oid: string): Promise<'blob' | 'tree' | 'commit' | 'tag' | null> {
    if (!FULL_OID.test(oid)) return null;
    if (this.commits.get(oid)) return 'commit';
    return this.checked((await this.objects.header(oid))?.type ?? null);
  }

  /** An annotated tag object, or null when `oid` is something else. */
  async readAnnotatedTag(oid: string): Promise<AnnotatedTag | null> {
    const kept = this.annotatedTags.get(oid);
    if (kept) return kept;
    const read = FULL_OID.test(oid) && !this.commits.get(oid) ? await this.readObject(oid) : null;
    return read?.type === 'tag' ? this.keepTag(parseAnnotatedTag(oid, read.content)) : null;
  }

  private keepTag(tag: AnnotatedTag): AnnotatedTag {
    this.annotatedTags.set(tag.oid, tag);
    return tag;
  }

  /** The entry at `path` (`a/b/c.txt`) in a tree, or null; the empty path is the tree itself. */
  async entryAt(treeOid: string, path: string): Promise<TreeEntry | null> {
    for (;;) {
      let missing: string | undefined;
      const found = this.entryIn(treeOid, path, (oid) => this.treeBytesInMemory(oid) ?? void (missing = oid));
      if (found !== undefined) return found;
      // A tree on the way read (and kept), then the path looked up again.
      await this.treeBytes(missing!);
    }
  }

  /** The entry at `path` when every tree on the way is in memory already (a walk's usual case); undefined otherwise. */
  entryInMemory(treeOid: string, path: string): TreeEntry | null | undefined {
    return this.entryIn(treeOid, path, (oid) => this.treeBytesInMemory(oid));
  }

  /**
   * The entry at `path`, the bytes of trees not parsed yet from `bytesOf` (a walk along a path needs one entry of each); undefined when it
   * has none.
   */
  private entryIn(treeOid: string, path: string, bytesOf: (oid: string) => Buffer | undefined): TreeEntry | null | undefined {
    let entry: TreeEntry = { name: '', mode: '040000', oid: treeOid, type: 'tree' };
    for (const part of path.split('/')) {
      if (!part) continue;
      if (entry.type !== 'tree') return null;
      const parsed = this.trees.get(entry.oid);
      let found: TreeEntry | RawTreeEntry | null | undefined;
      if (parsed) found = parsed.find((child) => child.name === part);
      else {
        const bytes = bytesOf(entry.oid);
        if (!bytes) return undefined;
        found = findTreeEntry(bytes, Buffer.from(part));
      }
      if (!found) return null;
      entry = 'type' in found ? found : treeEntries([found])[0];
    }
    return entry;
  }

  /** A new blob's object ID (written unless there already). */
  async writeBlob(content: Uint8Array): Promise<string> {
    return writeLooseObject(this.gitdir, 'blob', content);
  }

  /**
   * A new tree's object ID (its entries sorted as git sorts them). Kept as readTree would give it: the next
   * edit of the branch starts from the trees this one wrote.
   */
  async writeTree(entries: TreeEntry[]): Promise<string> {
    const oid = await writeLooseObject(this.gitdir, 'tree', treeContent(entries));
    if (!this.trees.get(oid)) {
      const kept = entries.map((entry) => {
        const mode = canonicalMode(entry.mode);
        return Object.freeze({ name: entry.name, mode: mode === '40000' ? '040000' : mode, oid: entry.oid, type: typeOfMode(mode) });
      });
      // readTree's order: by name alone.
      kept.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
      this.trees.set(oid, Object.freeze(kept));
    }
    return oid;
  }

  /** A new commit's object ID. Kept as it will read back, when it surely will: a write reads its commit next. */
  async writeCommit(given: Omit<Commit, 'oid'>): Promise<string> {
    const commit = { ...given, author: writtenPerson(given.author), committer: writtenPerson(given.committer) };
    const oid = await writeLooseObject(this.gitdir, 'commit', commitContent(commit));
    if (!this.commits.get(oid) && readsBackAsWritten(commit.author) && readsBackAsWritten(commit.committer)) {
      const { tree, parents, message, author, committer } = commit;
      const person = ({ name, email, timestamp, offsetMinutes }: Signature): Signature =>
        Object.freeze({ name, email, timestamp, offsetMinutes: offsetMinutes === 0 ? 0 : offsetMinutes });
      this.commits.set(
        oid,
        Object.freeze({
          oid,
          tree,
          parents: Object.freeze([...parents]) as string[],
          message: commitMessage(message),
          author: person(author),
          committer: person(committer),
        }),
      );
    }
    return oid;
  }

  /** A new annotated tag object's ID, naming a commit. */
  async writeAnnotatedTag(tag: { name: string; commit: string; message: string; tagger: Signature }): Promise<string> {
    const git = await isoGit();
    return git.writeTag({
      fs: gitFs,
      gitdir: this.gitdir,
      // isomorphic-git ends the message with a line end of its own: one the message has already is not doubled.
      tag: {
        object: tag.commit,
        type: 'commit',
        tag: tag.name,
        message: tag.message.replace(/\n$/, ''),
        tagger: personOf(writtenPerson(tag.tagger)),
      },
    });
  }
}

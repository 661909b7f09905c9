import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FORGEKIT_VERSION } from '../version.js';
import { GitError } from './errors.js';
import { type IndexedPack, indexPackInWorker, PackedCommits, PackIndexError } from './index-pack.js';
import { LruMap } from './lru.js';
import { CorruptObjectError, ObjectReader, parseTree, type ObjectType } from './object-reader.js';
import { parseAnnotatedTag, parseCommit } from './parse.js';
import { isValidReferenceName, listReferences } from './refs.js';
import type { Repository } from './repository.js';

// The server side of `git push` over smart HTTP (git's receive-pack, protocol version 0/1: gitprotocol-http,
// gitprotocol-pack; git push never speaks version 2), as a library with no transport of its own. The HTTP routes
// mount it, and wrap it with permissions, push rules, events and the repository's lock:
//
//   GET  <repo>/info/refs?service=git-receive-pack  → advertiseReceivePack(repo)    (RECEIVE_PACK_ADVERTISEMENT)
//   POST <repo>/git-receive-pack (body gunzipped)    → receivePack(repo, body, …), then the caller moves the
//        references it accepts (Repository.updateReference, compare-and-swap), then answers
//        reportStatus(push, results)                                                 (RECEIVE_PACK_RESULT)
//
// receivePack takes the pack as it comes, into a quarantine beside the repository's objects (never whole in memory
// here; the indexer's worker reads it, so `maxPackBytes` bounds that), indexes it off the event loop
// (index-pack.ts), and checks what the commands need: every new tip there, of a type its reference can hold, and
// everything it reaches that the pack brings complete down to objects the repository has. Only then do the pack
// and its index move into place (objects visible; no reference moved): a push that fails leaves nothing behind.
// receivePack needs no lock (its quarantine is its own, and a pack moved in changes no reference); the caller
// takes the repository's lock to apply the commands, and keeps an atomic push all or nothing for its own refusals.
//
// Thin packs (deltas against objects the repository has, not sent) are what `git push` sends unless the server
// advertises `no-thin`; index-pack.ts cannot complete them, so `no-thin` is advertised and a thin pack that comes
// anyway is refused as an unpack error.

/** The content type of advertiseReceivePack's answer. */
export const RECEIVE_PACK_ADVERTISEMENT = 'application/x-git-receive-pack-advertisement';
/** The content type of a push's request body. */
export const RECEIVE_PACK_REQUEST = 'application/x-git-receive-pack-request';
/** The content type of reportStatus's answer. */
export const RECEIVE_PACK_RESULT = 'application/x-git-receive-pack-result';

/** The request is not git's receive-pack protocol: the caller answers it with an error (400), no report. */
export class PushProtocolError extends GitError {
  override readonly name = 'PushProtocolError';
}

/** One reference update the client asks for: `old` and `new` are object IDs, the zero ID for none (create, delete). */
export interface PushCommand {
  old: string;
  new: string;
  ref: string;
  /**
   * Set when the push itself rules the command out (an unpack error, a name git refuses, objects missing, an
   * atomic push with another command ruled out): the caller must not apply it; reportStatus reports it `ng`.
   */
  error?: string;
}

/** A push as received: what it asks for, and what became of its pack. */
export interface ReceivedPush {
  /** In the order the client sent them. */
  commands: PushCommand[];
  /** What the client asked for (`report-status`, `side-band-64k`, `atomic`, `agent=…`, …). */
  capabilities: Set<string>;
  /** `git push -o …`, when the client sent any. */
  pushOptions: string[];
  /** All the commands or none: once one is refused, the caller refuses the rest ("atomic push failure"). */
  atomic: boolean;
  /** The pack could not be taken: every command fails ("unpacker error"), reported as `unpack <this>`. */
  unpackError?: string;
  /** The commits the pack brought, read by its indexer: for Repository.writeCommitGraph once references moved. */
  commits?: PackedCommits;
}

/** What the caller made of a command it applied (or refused). */
export type CommandResult = { ok: true } | { ok: false; reason: string };

const ZERO_ID = '0'.repeat(40);
const FULL_OID = /^[0-9a-f]{40}$/;
/** git's LARGE_PACKET_MAX: a pkt-line's length, its 4 digits included. */
const MAX_PACKET = 65520;
/** What one side-band packet carries: the packet less its length and its band byte. */
const SIDE_BAND_DATA = MAX_PACKET - 5;
/** The most commands one push may carry (a mirror push of every tag of a large project stays well below it). */
const MAX_COMMANDS = 100_000;
const MAX_PUSH_OPTIONS = 1000;
/** What the commands and push options may come to, in bytes: their lines are held in memory. */
const MAX_HEADER_BYTES = 32 * 1024 * 1024;
/** How long the connectivity walk runs before it lets the event loop turn. */
const TURN_MS = 8;
/** Objects of the repository the walk found, remembered: many trees of a push name the same blobs. */
const KEPT_PRESENT = 100_000;

/** What is advertised; `no-thin` because index-pack.ts cannot complete a thin pack. No `report-status-v2`: nothing to add to v1. */
const CAPABILITIES = [
  'report-status',
  'delete-refs',
  'side-band-64k',
  'quiet',
  'atomic',
  'ofs-delta',
  'push-options',
  'no-thin',
  'object-format=sha1',
  `agent=forgekit/${FORGEKIT_VERSION}`,
].join(' ');

/** A pkt-line: its length (of the bytes, with the 4 digits) in hex, then the payload. */
function packet(payload: string | Buffer): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const header = Buffer.from((bytes.length + 4).toString(16).padStart(4, '0'), 'latin1');
  return Buffer.concat([header, bytes]);
}
const FLUSH = Buffer.from('0000', 'latin1');

/** Reads pkt-lines out of a stream of chunks: `next()` gives a line's payload, null for a flush packet. */
class PacketReader {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private readonly chunks: AsyncIterator<Uint8Array>;

  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.chunks = chunks[Symbol.asyncIterator]();
  }

  private async fill(bytes: number): Promise<boolean> {
    while (this.buffer.length < bytes && !this.ended) {
      const { value, done } = await this.chunks.next();
      if (done) this.ended = true;
      else
        this.buffer = this.buffer.length
          ? Buffer.concat([this.buffer, value])
          : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
    return this.buffer.length >= bytes;
  }

  /** The next packet's payload, null for a flush (`0000`), undefined at the end of the stream. */
  async next(): Promise<Buffer | null | undefined> {
    if (!(await this.fill(4))) {
      if (this.buffer.length) throw new PushProtocolError('a packet is cut short');
      return undefined;
    }
    const digits = this.buffer.toString('latin1', 0, 4);
    const length = Number.parseInt(digits, 16);
    if (!/^[0-9a-f]{4}$/i.test(digits) || (length > 0 && length < 4) || length > MAX_PACKET)
      throw new PushProtocolError('not a packet line');
    if (length === 0) {
      this.buffer = this.buffer.subarray(4);
      return null;
    }
    if (!(await this.fill(length))) throw new PushProtocolError('a packet is cut short');
    const payload = this.buffer.subarray(4, length);
    this.buffer = this.buffer.subarray(length);
    return payload;
  }

  /** The rest of the stream as it is (the pack follows the commands without pkt-line framing). */
  async *rest(): AsyncGenerator<Buffer> {
    if (this.buffer.length) yield this.buffer;
    this.buffer = Buffer.alloc(0);
    while (!this.ended) {
      const { value, done } = await this.chunks.next();
      if (done) this.ended = true;
      else yield Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
}

/**
 * The body of `GET info/refs?service=git-receive-pack`: the service line and a flush, then every reference with
 * the capabilities on the first (`capabilities^{}` and the zero ID for an empty repository), then a flush.
 * receive-pack advertises neither HEAD nor peeled tags. `hidden`: references left out (git's `receive.hideRefs`;
 * the caller refuses updates of them too). RepositoryMissingError when the repository is not there.
 */
export async function advertiseReceivePack(repo: Repository, options: { hidden?: (name: string) => boolean } = {}): Promise<Buffer> {
  await repo.assertPresent();
  const references = [...(await listReferences(repo.gitdir, 'refs/'))]
    .map(([name, oid]): [string, string] => [`refs/${name}`, oid])
    .filter(([name]) => isValidReferenceName(name) && !options.hidden?.(name))
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const parts = [packet('# service=git-receive-pack\n'), FLUSH];
  if (!references.length) parts.push(packet(`${ZERO_ID} capabilities^{}\0${CAPABILITIES}\n`));
  references.forEach(([name, oid], index) => {
    parts.push(packet(index === 0 ? `${oid} ${name}\0${CAPABILITIES}\n` : `${oid} ${name}\n`));
  });
  parts.push(FLUSH);
  return Buffer.concat(parts);
}

/**
 * Reads the body of `POST git-receive-pack` (gunzipped by the caller): the commands (and the capabilities the
 * client asked for on the first), the push options when it asked for `push-options`, then the pack, when any
 * command creates or updates (a push of deletes only sends none). The pack is written as it arrives to a
 * quarantine directory inside the repository's `objects/` and indexed in a worker; then each new tip must be
 * there and of a type its reference holds (a commit for a branch), and every object it reaches that the
 * repository lacks must be in the pack. The pack and its index then move into `objects/pack` (unless no command
 * is left to apply) and the commands are returned for the caller to apply or refuse: no reference moves here.
 *
 * - A request that is not the protocol (its framing, a command line that is not `<old> <new> <ref>`, a reference
 *   named twice, more than MAX_COMMANDS commands or MAX_HEADER_BYTES of them) throws PushProtocolError: no report
 *   can be made of it. A request of no commands at all (git's probe before a large push) returns none.
 * - A pack over `maxPackBytes` (the rest of the request is then read and dropped, so that the report can be
 *   answered on the same connection; the signal bounds that), missing, cut short, damaged or thin: `unpackError`,
 *   and every command's `error` is "unpacker error".
 * - A reference name git refuses (or outside `refs/`): that command's `error` "funny refname"; a new tip not there
 *   or an object it reaches missing: "missing necessary objects"; an object of the wrong type, or that does not
 *   parse, on the way: "invalid object …"; a branch given a non-commit: "non-commit object on a branch". In an
 *   atomic push, one command ruled out rules out the others ("atomic push failure").
 * - An abort rejects with the signal's reason; an I/O error rejects as it is. Either way the quarantine goes.
 *
 * Objects the repository has are taken to be complete (their closure there): forgekit writes objects only
 * that way (transfer.ts, and this), as git's own receive-pack does through its quarantine.
 */
export async function receivePack(
  repo: Repository,
  request: AsyncIterable<Uint8Array>,
  options: { maxPackBytes: number; signal?: AbortSignal },
): Promise<ReceivedPush> {
  options.signal?.throwIfAborted();
  await repo.assertPresent();
  const reader = new PacketReader(request);
  const { commands, capabilities, headerBytes } = await readCommands(reader);
  const push: ReceivedPush = { commands, capabilities, pushOptions: [], atomic: capabilities.has('atomic') };
  if (!commands.length) return push;
  if (capabilities.has('push-options')) push.pushOptions = await readPushOptions(reader, headerBytes);
  for (const command of commands) {
    if (!command.ref.startsWith('refs/') || !isValidReferenceName(command.ref)) command.error = 'funny refname';
  }
  if (commands.some((command) => command.new !== ZERO_ID)) await receiveObjects(repo, reader, push, options);
  settleAtomic(push);
  return push;
}

/** The command list (`<old> <new> <ref>`, the first with NUL and the capabilities), shallow lines passed over. */
async function readCommands(reader: PacketReader): Promise<{ commands: PushCommand[]; capabilities: Set<string>; headerBytes: number }> {
  const commands: PushCommand[] = [];
  const capabilities = new Set<string>();
  const names = new Set<string>();
  let headerBytes = 0;
  for (;;) {
    const line = await reader.next();
    // An empty body: what git's HTTP client sends first to probe a server before a large push (`0000`), or nothing.
    if (line === undefined) {
      if (commands.length) throw new PushProtocolError('the command list has no end');
      break;
    }
    if (line === null) break;
    headerBytes += line.length + 4;
    if (headerBytes > MAX_HEADER_BYTES) throw new PushProtocolError('the command list is too long');
    let text = line.toString('utf8');
    if (text.endsWith('\n')) text = text.slice(0, -1);
    // A shallow client's boundary commits: the connectivity walk stops at what the repository has anyway.
    if (!commands.length && /^shallow [0-9a-f]{40}$/.test(text)) continue;
    const nul = text.indexOf('\0');
    if (nul >= 0) {
      if (commands.length) throw new PushProtocolError('capabilities after the first command');
      for (const capability of text.slice(nul + 1).split(' ')) if (capability) capabilities.add(capability);
      text = text.slice(0, nul);
    }
    const match = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.+)$/.exec(text);
    if (!match) throw new PushProtocolError('a command is not `<old> <new> <ref>`');
    if (names.has(match[3])) throw new PushProtocolError(`${match[3]} is named twice`);
    if (commands.length >= MAX_COMMANDS) throw new PushProtocolError(`more than ${MAX_COMMANDS} commands`);
    names.add(match[3]);
    commands.push({ old: match[1], new: match[2], ref: match[3] });
  }
  const format = [...capabilities].find((capability) => capability.startsWith('object-format='));
  if (format && format !== 'object-format=sha1') throw new PushProtocolError(`${format} is not supported`);
  return { commands, capabilities, headerBytes };
}

/** The push options, up to their flush. */
async function readPushOptions(reader: PacketReader, headerBytes: number): Promise<string[]> {
  const pushOptions: string[] = [];
  for (let line = await reader.next(); line !== null; line = await reader.next()) {
    if (line === undefined) throw new PushProtocolError('the push options have no end');
    headerBytes += line.length + 4;
    if (headerBytes > MAX_HEADER_BYTES || pushOptions.length >= MAX_PUSH_OPTIONS) throw new PushProtocolError('too many push options');
    pushOptions.push(line.toString('utf8').replace(/\n$/, ''));
  }
  return pushOptions;
}

/** Every command fails with the push's unpack error. */
function failUnpack(push: ReceivedPush, error: string): void {
  push.unpackError = error;
  for (const command of push.commands) command.error = 'unpacker error';
}

/** An atomic push with a command ruled out: every other one is too. */
function settleAtomic(push: ReceivedPush): void {
  if (!push.atomic || !push.commands.some((command) => command.error !== undefined)) return;
  for (const command of push.commands) command.error ??= 'atomic push failure';
}

/** The pack streamed into a quarantine, indexed, checked against the commands, and moved into place (see receivePack). */
async function receiveObjects(
  repo: Repository,
  reader: PacketReader,
  push: ReceivedPush,
  options: { maxPackBytes: number; signal?: AbortSignal },
): Promise<void> {
  const { signal } = options;
  // Laid out as a repository of its own (`objects/pack` inside), for an ObjectReader to read before the pack is
  // visible; under git's own name for a quarantine, which its tools pass over.
  const quarantine = join(repo.gitdir, 'objects', `tmp_objdir-incoming-${randomBytes(6).toString('hex')}`);
  const quarantinePacks = join(quarantine, 'objects', 'pack');
  let objects: ObjectReader | undefined;
  try {
    await mkdir(quarantinePacks, { recursive: true });
    const received = join(quarantinePacks, 'tmp_pack');
    if (!(await writePack(reader, received, options))) return failUnpack(push, 'pack exceeds maximum allowed size');
    signal?.throwIfAborted();
    let indexed: IndexedPack;
    try {
      indexed = await indexPackInWorker(received, [], signal);
    } catch (error) {
      if (error instanceof PackIndexError) return failUnpack(push, error.message);
      throw error;
    }
    const name = `pack-${indexed.checksum}`;
    if (indexed.count) {
      await rename(received, join(quarantinePacks, `${name}.pack`));
      await writeFile(join(quarantinePacks, `${name}.idx`), indexed.index);
      objects = new ObjectReader(quarantine);
    }
    await checkCommands(repo, push, indexed.count ? { index: indexed.index, objects: objects! } : undefined, signal);
    await objects?.close();
    objects = undefined;
    settleAtomic(push);
    // Nothing left to apply: the pack goes with the quarantine, as git's receive-pack drops its own then.
    if (!indexed.count || push.commands.every((command) => command.error !== undefined)) return;
    signal?.throwIfAborted();
    const packs = join(repo.gitdir, 'objects', 'pack');
    await mkdir(packs, { recursive: true });
    // The index goes in last, as git does it: a pack is found through its index.
    await rename(join(quarantinePacks, `${name}.pack`), join(packs, `${name}.pack`));
    await rename(join(quarantinePacks, `${name}.idx`), join(packs, `${name}.idx`));
    push.commits = new PackedCommits(indexed.commits);
  } finally {
    await objects?.close();
    await rm(quarantine, { recursive: true, force: true });
  }
}

/**
 * Writes the rest of the request (the pack) to `path`, as it comes; false once it is over `maxPackBytes`, the
 * rest of the request then read and dropped.
 */
async function writePack(reader: PacketReader, path: string, options: { maxPackBytes: number; signal?: AbortSignal }): Promise<boolean> {
  const file = await open(path, 'wx');
  let size = 0;
  try {
    for await (const chunk of reader.rest()) {
      options.signal?.throwIfAborted();
      size += chunk.length;
      if (size <= options.maxPackBytes) await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  return size <= options.maxPackBytes;
}

/** The position of `oid` among a `.idx` (version 2)'s sorted names, or -1. */
function positionIn(index: Buffer, oid: string): number {
  const wanted = Buffer.from(oid, 'hex');
  const names = 8 + 256 * 4;
  let low = wanted[0] === 0 ? 0 : index.readUInt32BE(8 + (wanted[0] - 1) * 4);
  let high = index.readUInt32BE(8 + wanted[0] * 4);
  while (low < high) {
    const middle = (low + high) >>> 1;
    // Positive when the name at `middle` comes after the one wanted.
    const order = index.compare(wanted, 0, 20, names + middle * 20, names + middle * 20 + 20);
    if (order === 0) return middle;
    if (order > 0) high = middle;
    else low = middle + 1;
  }
  return -1;
}

/** The received pack, while in quarantine: its index, and a reader of its objects. */
interface Quarantined {
  index: Buffer;
  objects: ObjectReader;
}

/** Sets the `error` of each command whose new tip is missing, of the wrong type, or reaches objects that are missing. */
async function checkCommands(repo: Repository, push: ReceivedPush, pack: Quarantined | undefined, signal?: AbortSignal): Promise<void> {
  const walk = new ConnectivityWalk(repo, pack, signal);
  const tips: { command: PushCommand; type: ObjectType }[] = [];
  for (const command of push.commands) {
    if (command.error !== undefined || command.new === ZERO_ID) continue;
    const type = await walk.typeOf(command.new);
    if (!type) command.error = 'missing necessary objects';
    else if (command.ref.startsWith('refs/heads/') && type !== 'commit') command.error = 'non-commit object on a branch';
    else tips.push({ command, type });
  }
  if (!tips.length) return;
  const failed = await walk.check(tips.map(({ command, type }) => ({ oid: command.new, type })));
  if (failed === undefined) return;
  if (tips.length === 1) {
    tips[0].command.error = failed;
    return;
  }
  // As git does: the walk over all the tips failed, so each one is walked again alone, to tell which.
  for (const { command, type } of tips) {
    const error = await new ConnectivityWalk(repo, pack, signal).check([{ oid: command.new, type }]);
    if (error !== undefined) command.error = error;
  }
}

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
const TYPE_NAMES = ['', 'commit', 'tree', 'blob', 'tag'];

/**
 * git's connectivity check, bounded by the pack: from the new tips through the pack's objects (commits to their
 * tree and parents, trees to their entries, tags to their object) down to objects the repository has, where it
 * stops. Each object's type must be the one its referrer says; a blob's content is not read (nor is it by git).
 */
class ConnectivityWalk {
  /** Per object of the pack (by its position in the index), the type it was reached as; 0 when not yet. */
  private readonly reached: Uint8Array;
  private readonly present = new LruMap<string, ObjectType>(KEPT_PRESENT);

  constructor(
    private readonly repo: Repository,
    private readonly pack: Quarantined | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.reached = new Uint8Array(pack ? pack.index.readUInt32BE(8 + 255 * 4) : 0);
  }

  private position(oid: string): number {
    return this.pack ? positionIn(this.pack.index, oid) : -1;
  }

  /** The type of the object, in the pack or in the repository; null when neither has it. */
  async typeOf(oid: string): Promise<ObjectType | null> {
    if (this.position(oid) >= 0) return (await this.pack!.objects.header(oid))?.type ?? null;
    return this.repo.objectType(oid);
  }

  /** Undefined when everything the tips reach is there, of the type said; otherwise the command's error. */
  async check(tips: { oid: string; type: ObjectType }[]): Promise<string | undefined> {
    const stack = tips.map(({ oid, type }): [string, ObjectType] => [oid, type]);
    let turnAt = performance.now() + TURN_MS;
    while (stack.length) {
      if (performance.now() > turnAt) {
        await nextTurn();
        this.signal?.throwIfAborted();
        turnAt = performance.now() + TURN_MS;
      }
      const [oid, expected] = stack.pop()!;
      // Most names are of objects the repository had, named again by each new tree: known without a search of the pack.
      let type = this.present.get(oid);
      if (type) {
        if (type !== expected) return `invalid object ${oid}: a ${type}, named as a ${expected}`;
        continue;
      }
      const at = this.position(oid);
      if (at < 0) {
        type = (await this.repo.objectType(oid)) ?? undefined;
        if (!type) return 'missing necessary objects';
        this.present.set(oid, type);
        if (type !== expected) return `invalid object ${oid}: a ${type}, named as a ${expected}`;
        continue;
      }
      if (this.reached[at]) {
        // One object, two referrers that disagree on its type: one of them is wrong.
        if (this.reached[at] !== TYPE_CODES[expected])
          return `invalid object ${oid}: named as a ${TYPE_NAMES[this.reached[at]]} and as a ${expected}`;
        continue;
      }
      this.reached[at] = TYPE_CODES[expected];
      if (expected === 'blob') continue;
      const object = await this.pack!.objects.read(oid);
      if (object.type !== expected) return `invalid object ${oid}: a ${object.type}, named as a ${expected}`;
      try {
        stack.push(...referencesOf(oid, object.type, object.content));
      } catch (error) {
        if (error instanceof CorruptObjectError) return `invalid object ${oid}: ${error.message}`;
        throw error;
      }
    }
    return undefined;
  }
}

/** What an object names, with the type each must be: a commit's tree and parents, a tree's entries, a tag's object. */
function referencesOf(oid: string, type: ObjectType, content: Buffer): [string, ObjectType][] {
  const named: [string, ObjectType][] = [];
  const add = (target: string, targetType: ObjectType) => {
    if (!FULL_OID.test(target)) throw new CorruptObjectError(`it names ${JSON.stringify(target.slice(0, 50))}, not an object ID`);
    named.push([target, targetType]);
  };
  if (type === 'commit') {
    const commit = parseCommit(oid, content);
    add(commit.tree, 'tree');
    for (const parent of commit.parents) add(parent, 'commit');
  } else if (type === 'tree') {
    for (const entry of parseTree(content)) {
      // A submodule's commit is another repository's.
      if (entry.mode === '160000') continue;
      add(entry.oid, entry.mode === '40000' || entry.mode === '040000' ? 'tree' : 'blob');
    }
  } else if (type === 'tag') {
    const tag = parseAnnotatedTag(oid, content);
    if (!Object.hasOwn(TYPE_CODES, tag.type))
      throw new CorruptObjectError(`it names an object of type ${JSON.stringify(tag.type.slice(0, 50))}`);
    add(tag.object, tag.type as ObjectType);
  }
  return named;
}

/** A reason on one line, as the report's `ng` line carries it. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

/**
 * The response body to a push: report-status when the client asked for it (`unpack ok` or `unpack <error>`, then
 * `ok <ref>` or `ng <ref> <reason>` per command, then a flush). A command with an `error` is reported with it;
 * any other with its entry of `results`, by reference name (none: "not processed"). When the client asked for
 * side-band-64k, `messages` go first on band 2 (git shows them as `remote: …`), the report on band 1, then a
 * flush; without side-band, messages cannot be sent and are dropped. A push of no commands (git's probe of a
 * server before a large push) gets an empty body.
 */
export function reportStatus(push: ReceivedPush, results: ReadonlyMap<string, CommandResult>, messages: string[] = []): Buffer {
  if (!push.commands.length) return Buffer.alloc(0);
  const report: Buffer[] = [];
  if (push.capabilities.has('report-status')) {
    report.push(packet(`unpack ${push.unpackError === undefined ? 'ok' : oneLine(push.unpackError) || 'error'}\n`));
    for (const command of push.commands) {
      const result: CommandResult =
        command.error !== undefined
          ? { ok: false, reason: command.error }
          : (results.get(command.ref) ?? { ok: false, reason: 'not processed' });
      report.push(packet(result.ok ? `ok ${command.ref}\n` : `ng ${command.ref} ${oneLine(result.reason) || 'refused'}\n`));
    }
    report.push(FLUSH);
  }
  if (!push.capabilities.has('side-band-64k')) return Buffer.concat(report);
  const parts: Buffer[] = [];
  const band = (number: number, data: Buffer) => {
    for (let at = 0; at < data.length; at += SIDE_BAND_DATA)
      parts.push(packet(Buffer.concat([Buffer.of(number), data.subarray(at, at + SIDE_BAND_DATA)])));
  };
  for (const message of messages) band(2, Buffer.from(message.endsWith('\n') ? message : `${message}\n`));
  band(1, Buffer.concat(report));
  parts.push(FLUSH);
  return Buffer.concat(parts);
}

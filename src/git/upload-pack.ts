import { availableParallelism } from 'node:os';
import { addAbortSignal, Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FORGEKIT_VERSION } from '../version.js';
import type { CommitNode } from './commit-graph.js';
import { RepositoryMissingError } from './errors.js';
import { CorruptObjectError, MissingObjectError, ObjectReader, PackCache, parseTree, type RawTreeEntry } from './object-reader.js';
import { hasBit, type ObjectBits, type PackBitmap, setBit, setBits, StoredPacks, writePack } from './pack-writer.js';
import {
  DELIMITER_PACKET,
  FLUSH_PACKET,
  MAX_PACKET_PAYLOAD_BYTES,
  PacketLineError,
  PacketReader,
  packetLine,
  type Packet,
} from './pkt-line.js';
import { listReferences, readReference, readSymbolicReference } from './refs.js';
import { CommitQueue } from './history.js';
import type { Repository } from './repository.js';

/**
 * The server side of git's upload-pack over smart HTTP (gitprotocol-http, gitprotocol-pack, gitprotocol-v2): what
 * `git clone` and `git fetch` ask of a repository, answered by forgekit's own reader and pack writer (no git binary),
 * knowing nothing of HTTP. The HTTP layer mounts it:
 *
 * - `GET <path>.git/info/refs?service=git-upload-pack` → `advertiseUploadPack(repo, requestedProtocol(Git-Protocol))`,
 *   answered `200`, `Content-Type: application/x-git-upload-pack-advertisement`, `Cache-Control: no-cache`.
 * - `POST <path>.git/git-upload-pack` → `uploadPack(repo, body, requestedProtocol(Git-Protocol), { signal })`, the
 *   body gunzipped first when `Content-Encoding: gzip`, answered `200`,
 *   `Content-Type: application/x-git-upload-pack-result`, the stream piped as it comes (it is never whole in memory).
 *
 * Protocol versions 0 and 1 (the references advertised with capabilities; wants, shallow and deepen lines, haves
 * negotiated as git does for a stateless client: multi_ack_detailed, multi_ack or none, no-done) and version 2
 * (`ls-refs` with ref-prefix, symrefs, peel, unborn; `fetch` with acknowledgments, ready, done, wait-for-done,
 * shallow-info). Both send thin packs, offset deltas, progress (side-band-64k, side-band or none; `no-progress`),
 * tags that point into the pack (`include-tag`), and shallow clones (`deepen N`, `deepen-since`, `deepen-not`,
 * `deepen-relative`, unshallowing). A want must be a reference's tip or a commit one reaches (git checks the same
 * for a stateless client), in every version. Not supported, so not advertised: `filter` (partial clones: git
 * then clones whole, saying so), `want-ref`, `sideband-all`, `packfile-uris`, SHA-256. Every reference under
 * refs/ is advertised.
 *
 * As git's own: the objects to send are listed from the pack's reachability bitmap when it has one (`git gc`
 * writes one for a bare repository) and the clone is not shallow, by a walk of commits by date and of trees along
 * the paths that changed otherwise; the pack copies what the packs store (src/git/pack-writer.ts) and streams.
 *
 * A request that is not the protocol (a malformed packet, an unknown command, capability or argument, a want the
 * repository does not have or does not reach, too many lines) is answered with git's `ERR <message>` packet, or on
 * the error band once the pack has started; nothing is thrown at the caller. Everything a request brings is
 * bounded (its size, its wants, haves, shallow lines and prefixes). An unexpected failure (a damaged repository)
 * is answered the same way and handed to `onError`.
 */

/** The protocol version a request asks for, from its `Git-Protocol` header (`version=2`); 0 without one. */
export type ProtocolVersion = 0 | 1 | 2;

export const UPLOAD_PACK_ADVERTISEMENT_TYPE = 'application/x-git-upload-pack-advertisement';
export const UPLOAD_PACK_RESULT_TYPE = 'application/x-git-upload-pack-result';

/** A request that is not git's protocol, or that asks for what is not given: answered with its message. */
export class UploadPackError extends Error {
  override readonly name = 'UploadPackError';
}

export interface UploadPackOptions {
  /** Stops the work (the instance closes): the stream is destroyed (an AbortError). A stream destroyed by its reader stops it too. */
  signal?: AbortSignal;
  /** Told of a failure that is not the client's (a damaged repository); the client is told only that it failed. */
  onError?: (error: unknown) => void;
}

/** The highest version a `Git-Protocol` header asks for (`version=2`, keys separated by colons), as git reads it. */
export function requestedProtocol(header: string | string[] | undefined): ProtocolVersion {
  let version: ProtocolVersion = 0;
  for (const value of (Array.isArray(header) ? header.join(':') : (header ?? '')).split(':')) {
    const asked = /^version=([12])$/.exec(value.trim())?.[1];
    if (asked && Number(asked) > version) version = Number(asked) as ProtocolVersion;
  }
  return version;
}

const AGENT = `forgekit/${FORGEKIT_VERSION}`;
const ZERO_ID = '0'.repeat(40);
const OID = /^[0-9a-f]{40}$/;
/** git's "deepen" without end (`git fetch --unshallow`). */
const INFINITE_DEPTH = 0x7fffffff;

/** What one request may bring. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const MAX_WANTS = 100_000;
const MAX_HAVES = 200_000;
const MAX_SHALLOWS = 100_000;
const MAX_DEEPEN_NOT = 1000;
const MAX_CAPABILITY_LINES = 1000;
/** How many commits one request's checks of whether the wants reach the haves may read, all together. */
const MAX_GIVE_UP_WALK = 1_000_000;
/** More `ref-prefix` lines than this and they are ignored: every reference is listed (as git does). */
const TOO_MANY_PREFIXES = 65536;
/** How long a walk runs before it lets the event loop turn (most of its reads are served from memory). */
const TURN_MS = 8;
/** How often progress is told while objects are enumerated; with no progress, an empty packet keeps the connection alive. */
const PROGRESS_MS = 1000;
const KEEPALIVE_MS = 5000;
/**
 * What the requests' readers keep of the packs they read (git's delta base cache is 96 MiB), shared: the clones and
 * fetches of one repository read the same objects (CI's shallow clones of one head most of all), and a pack's
 * content never changes under its name.
 */
const requestsPackCache = new PackCache(96 * 1024 * 1024);
/** git's commit walk goes on for this many commits once only uninteresting ones are left (commit dates can be skewed). */
const SLOP = 5;

const V0_CAPABILITIES = [
  'multi_ack',
  'thin-pack',
  'side-band',
  'side-band-64k',
  'ofs-delta',
  'shallow',
  'deepen-since',
  'deepen-not',
  'deepen-relative',
  'no-progress',
  'include-tag',
  'multi_ack_detailed',
  'allow-tip-sha1-in-want',
  'allow-reachable-sha1-in-want',
  'no-done',
];

/** The repository's references as advertised: HEAD (what it names, and holds), then every reference under refs/, sorted. */
interface References {
  headTarget: string | null;
  headOid: string | null;
  refs: { name: string; oid: string }[];
}

async function readReferences(repo: Repository): Promise<References> {
  await repo.assertPresent();
  const refs = [...(await listReferences(repo.gitdir, 'refs/'))]
    .map(([name, oid]) => ({ name: `refs/${name}`, oid }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  const headTarget = await readSymbolicReference(repo.gitdir, 'HEAD');
  const headOid = await readReference(repo.gitdir, 'HEAD');
  return { headTarget, headOid, refs };
}

/** What an annotated tag names in the end (tags of tags followed); null when `oid` is no tag. */
async function peeled(repo: Repository, oid: string): Promise<string | null> {
  if ((await repo.objectType(oid)) !== 'tag') return null;
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    const tag = await repo.readAnnotatedTag(current);
    if (!tag || !OID.test(tag.object)) return null;
    if (tag.type !== 'tag') return tag.object;
    current = tag.object;
  }
  return null;
}

/**
 * The body of `GET info/refs?service=git-upload-pack`: for versions 0 and 1, `# service=git-upload-pack` and a
 * flush, then the references (HEAD first, with the capabilities; annotated tags followed by their peeled `^{}`
 * line; an empty repository's `capabilities^{}`); for version 2, its capabilities only (git's http-backend sends
 * no service line then). RepositoryMissingError when the repository is not there.
 */
export async function advertiseUploadPack(repo: Repository, protocol: ProtocolVersion): Promise<Buffer> {
  if (protocol === 2) {
    await repo.assertPresent();
    const lines = ['version 2', `agent=${AGENT}`, 'ls-refs=unborn', 'fetch=shallow wait-for-done', 'server-option', 'object-format=sha1'];
    return Buffer.concat([...lines.map((line) => packetLine(`${line}\n`)), FLUSH_PACKET]);
  }
  const { headTarget, headOid, refs } = await readReferences(repo);
  const capabilities = [...V0_CAPABILITIES];
  if (headOid && headTarget) capabilities.push(`symref=HEAD:${headTarget}`);
  capabilities.push('object-format=sha1', `agent=${AGENT}`);
  const packets = [packetLine('# service=git-upload-pack\n'), FLUSH_PACKET];
  if (protocol === 1) packets.push(packetLine('version 1\n'));
  const advertised = headOid ? [{ name: 'HEAD', oid: headOid }, ...refs] : refs;
  if (!advertised.length) packets.push(packetLine(`${ZERO_ID} capabilities^{}\0${capabilities.join(' ')}\n`));
  for (const [index, { name, oid }] of advertised.entries()) {
    packets.push(packetLine(index === 0 ? `${oid} ${name}\0${capabilities.join(' ')}\n` : `${oid} ${name}\n`));
    const target = name === 'HEAD' ? null : await peeled(repo, oid);
    if (target) packets.push(packetLine(`${target} ${name}^{}\n`));
  }
  packets.push(FLUSH_PACKET);
  return Buffer.concat(packets);
}

/**
 * Answers a `POST git-upload-pack` body (`request`, gunzipped), of protocol version 0, 1 or 2, as the stream of the
 * response's body. Never throws at the caller: a bad request is answered within the protocol (see above).
 */
export function uploadPack(
  repo: Repository,
  request: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  protocol: ProtocolVersion,
  options: UploadPackOptions = {},
): Readable {
  const stop = new AbortController();
  const answer = Readable.from(answerRequest(repo, request, protocol, stop.signal, options.onError), { objectMode: false });
  // Whatever runs for the answer stops once it is no longer read: ended, destroyed (a client gone), or aborted.
  answer.once('close', () => stop.abort(new Error('the upload-pack answer is no longer read')));
  if (options.signal) addAbortSignal(options.signal, answer);
  return answer;
}

/**
 * Every object `tips` reach (annotated tags, commits, trees, blobs), as a clone of them all is sent: what housekeeping
 * packs. From the bitmap when the repository has one.
 */
export async function reachableObjects(
  repo: Repository,
  tips: readonly string[],
  signal = new AbortController().signal,
): Promise<string[]> {
  const session = new UploadPack(repo, signal);
  try {
    return await session.reachableFrom(tips);
  } finally {
    await session.close();
  }
}

async function* answerRequest(
  repo: Repository,
  request: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  protocol: ProtocolVersion,
  signal: AbortSignal,
  onError: UploadPackOptions['onError'],
): AsyncGenerator<Buffer> {
  const session = new UploadPack(repo, signal);
  const reader = new PacketReader(request, {
    error: (message) => new UploadPackError(`protocol error: ${message}`),
    maxBytes: MAX_REQUEST_BYTES,
  });
  try {
    yield* protocol === 2 ? session.serveVersion2(reader) : session.serveVersion0(reader);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    let message: string;
    if (error instanceof UploadPackError || error instanceof PacketLineError) message = error.message;
    else if (error instanceof RepositoryMissingError) message = 'repository not found';
    else {
      onError?.(error);
      message =
        error instanceof CorruptObjectError || error instanceof MissingObjectError
          ? 'aborting due to possible repository corruption on the remote side.'
          : 'upload-pack failed on the remote side';
    }
    const failure = session.failure(message);
    if (failure) yield failure;
  } finally {
    await session.close();
  }
}

/**
 * Packs made at once in this process; more wait their turn. Each holds memory by the count of its objects (their IDs,
 * where each is stored) and one event loop makes them all: more at once would only share the same CPU, and the
 * memory of many clones of a large repository would add up without bound.
 */
const PACKS_AT_ONCE = Math.max(2, availableParallelism() * 2);
let packsMaking = 0;
const waitingForPacks: (() => void)[] = [];

/** A turn to make a pack (waited for, unless the request stops first): call what it resolves to once done. */
async function packSlot(signal: AbortSignal): Promise<() => void> {
  while (packsMaking >= PACKS_AT_ONCE) {
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        waitingForPacks.splice(waitingForPacks.indexOf(wake), 1);
        reject(signal.reason);
      };
      signal.throwIfAborted();
      waitingForPacks.push(wake);
      signal.addEventListener('abort', stop, { once: true });
    });
  }
  packsMaking += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    packsMaking -= 1;
    waitingForPacks.shift()?.();
  };
}

/** A line's text, its one line end taken off (git's PACKET_READ_CHOMP_NEWLINE). */
const lineText = (payload: Buffer) => {
  const text = payload.toString('utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
};

function parseOid(text: string, line: string): string {
  const oid = text.toLowerCase();
  if (!OID.test(oid)) throw new UploadPackError(`protocol error: expected an object ID, not '${line}'`);
  return oid;
}

/** A positive number of commits (`deepen N`), as git reads it. */
function parseDepth(text: string, line: string): number {
  const depth = /^\d{1,10}$/.test(text) ? Number(text) : 0;
  if (depth <= 0 || depth > INFINITE_DEPTH) throw new UploadPackError(`invalid deepen: ${line}`);
  return depth;
}

function parseSince(text: string, line: string): number {
  const since = /^\d{1,15}$/.test(text) ? Number(text) : 0;
  if (since <= 0) throw new UploadPackError(`invalid deepen-since: ${line}`);
  return since;
}

/** Commit walk flags (git's object flags of the same names). */
const SEEN = 1;
const UNINTERESTING = 2;
const QUEUED = 4;
const POPPED = 8;

/** A mode of a tree entry: a directory, or a submodule (a commit of another repository, never sent). */
const isTree = (mode: string) => mode === '40000' || mode === '040000';
const isSubmodule = (mode: string) => mode === '160000';

/** What the pack is to hold, and what the client has that a delta may be made against. */
interface Enumerated {
  oids: string[];
  clientHas: (oid: string) => boolean;
}

/** What the wants are, by kind (annotated tags followed), and the commits the haves are or name. */
interface Roots {
  tags: string[];
  commits: string[];
  trees: string[];
  blobs: string[];
  haveCommits: string[];
}

/** A damaged bitmap is no answer: the objects are walked instead. */
const ignoreCorrupt = (error: unknown): undefined => {
  if (error instanceof CorruptObjectError) return undefined;
  throw error;
};

/** How many bits of a 32-bit word are set. */
function popCount(word: number): number {
  let rest = word - ((word >>> 1) & 0x55555555);
  rest = (rest & 0x33333333) + ((rest >>> 2) & 0x33333333);
  return (((rest + (rest >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** One request: what the client asked for and has, and what is worked out from it. */
class UploadPack {
  private readonly objects: ObjectReader;
  private references?: Promise<References>;
  private reachability?: Reachability;
  /** Commits as walks read them (tree, parents, time), kept for the request. */
  private readonly nodes = new Map<string, CommitNode>();
  private turnedAt = performance.now();

  // What the client asked for.
  private readonly wants: string[] = [];
  private readonly wanted = new Set<string>();
  /** The client's shallow commits that this repository has (the others are ignored, as git does). */
  private readonly shallows = new Set<string>();
  private depth = 0;
  private deepenSince = 0;
  /** `deepen-not` references, by full name. */
  private readonly deepenNot: string[] = [];
  private deepenRelative = false;
  private multiAck: 0 | 1 | 2 = 0;
  private noDone = false;
  private thinPack = false;
  private ofsDelta = false;
  /** The longest packet of pack data and progress: 0 without side-band. */
  private sideBand = 0;
  private noProgress = false;
  private includeTag = false;
  private waitForDone = false;

  // What negotiation learnt: objects the client has (git's have_obj), commits known to be the client's with their
  // parents (THEY_HAVE), and the oldest of them.
  private readonly haveObjects: string[] = [];
  private readonly theyHave = new Set<string>();
  private oldestHave = 0;
  /** Wants known to reach a commit the client has, and commits known not to (since `theyHave` last grew). */
  private readonly wantsReaching = new Set<string>();
  private notReaching = new Set<string>();
  private lastGiveUp?: { asked: string; answer: boolean };
  private givingUpBudget = MAX_GIVE_UP_WALK;

  // What the shallow lines work out: commits whose parents the walk does not follow (the client's shallow commits
  // and the new ones), and commits the client has once unshallowed (their trees are the client's).
  private readonly grafts = new Set<string>();
  private readonly extraEdges: string[] = [];

  /** Whether the pack's data has started (an error then goes on the error band), and how many objects are counted so far. */
  private packStarted = false;
  private counted = 0;

  constructor(
    private readonly repo: Repository,
    private readonly signal: AbortSignal,
  ) {
    this.objects = new ObjectReader(repo.gitdir, requestsPackCache);
  }

  async close(): Promise<void> {
    await this.objects.close();
  }

  async reachableFrom(tips: readonly string[]): Promise<string[]> {
    for (const tip of tips) this.addWant(tip);
    const packs = await StoredPacks.open(this.repo.gitdir);
    try {
      return (await this.enumerate(packs)).oids;
    } finally {
      await packs.close();
    }
  }

  /** The answer to a failure: `ERR` before the pack, the error band within it (nothing without side-band). */
  failure(message: string): Buffer | undefined {
    if (!this.packStarted) return packetLine(`ERR ${message}\n`);
    return this.sideBand ? this.band(3, Buffer.from(`${message}\n`)) : undefined;
  }

  // ---- protocol version 0 and 1 ----

  async *serveVersion0(reader: PacketReader): AsyncGenerator<Buffer> {
    for (let packet = await reader.read(); packet !== undefined && packet !== 'flush'; packet = await reader.read()) {
      const line = this.line(packet);
      if (await this.readShallowLine(line)) continue;
      const match = /^want ([0-9a-fA-F]{40})(.*)$/.exec(line);
      if (!match) {
        if (line.startsWith('filter ')) throw new UploadPackError('filtering capability not negotiated');
        throw new UploadPackError(`protocol error: expected to get object ID, not '${line}'`);
      }
      const features = new Set(match[2].split(' ').filter(Boolean));
      if (features.has('deepen-relative')) this.deepenRelative = true;
      if (features.has('multi_ack_detailed')) this.multiAck = 2;
      else if (features.has('multi_ack') && this.multiAck === 0) this.multiAck = 1;
      if (features.has('no-done')) this.noDone = true;
      if (features.has('thin-pack')) this.thinPack = true;
      if (features.has('ofs-delta')) this.ofsDelta = true;
      if (features.has('side-band-64k')) this.sideBand = MAX_PACKET_PAYLOAD_BYTES;
      else if (features.has('side-band') && !this.sideBand) this.sideBand = 996;
      if (features.has('no-progress')) this.noProgress = true;
      if (features.has('include-tag')) this.includeTag = true;
      this.addWant(parseOid(match[1], line));
    }
    await this.checkWants();
    const shallowLines = await this.shallowUpdate();
    const answered: Buffer[] = [];
    if (shallowLines) {
      yield Buffer.concat([...shallowLines.map((line) => packetLine(`${line}\n`)), FLUSH_PACKET]);
    }
    if (!this.wants.length) return;
    let packet = await reader.read();
    // A stateless client asking for the shallow lines alone ends its request here.
    if (packet === undefined) return;

    // Negotiation, as git's get_common_commits answers a stateless client: one round, then the pack or nothing.
    let gotCommon = false;
    let gotOther = false;
    let sentReady = false;
    let lastCommon = '';
    let haves = 0;
    for (; ; packet = await reader.read()) {
      if (packet === undefined) throw new UploadPackError('protocol error: the request ends before its flush');
      if (packet === 'flush') {
        if (this.multiAck === 2 && gotCommon && !gotOther && (await this.okToGiveUp())) {
          sentReady = true;
          answered.push(packetLine(`ACK ${lastCommon} ready\n`));
        }
        if (!this.haveObjects.length || this.multiAck) answered.push(packetLine('NAK\n'));
        if (this.noDone && sentReady) {
          answered.push(packetLine(`ACK ${lastCommon}\n`));
          break;
        }
        if (answered.length) yield Buffer.concat(answered);
        return;
      }
      const line = this.line(packet);
      if (line.startsWith('have ')) {
        if (++haves > MAX_HAVES) throw new UploadPackError('too many haves');
        const oid = parseOid(line.slice(5), line);
        const got = await this.gotOid(oid);
        if (got < 0) {
          gotOther = true;
          if (this.multiAck && (await this.okToGiveUp())) {
            if (this.multiAck === 2) {
              sentReady = true;
              answered.push(packetLine(`ACK ${oid} ready\n`));
            } else answered.push(packetLine(`ACK ${oid} continue\n`));
          }
        } else {
          gotCommon = true;
          lastCommon = oid;
          if (this.multiAck === 2) answered.push(packetLine(`ACK ${oid} common\n`));
          else if (this.multiAck === 1) answered.push(packetLine(`ACK ${oid} continue\n`));
          else if (this.haveObjects.length === 1 && got === 1) answered.push(packetLine(`ACK ${oid}\n`));
        }
        if (answered.length >= 256) yield Buffer.concat(answered.splice(0));
        continue;
      }
      if (line === 'done') {
        if (this.haveObjects.length) {
          if (this.multiAck) answered.push(packetLine(`ACK ${lastCommon}\n`));
        } else answered.push(packetLine('NAK\n'));
        break;
      }
      throw new UploadPackError(`protocol error: expected SHA1 list, got '${line}'`);
    }
    if (answered.length) yield Buffer.concat(answered);
    yield* this.sendPack(false);
  }

  // ---- protocol version 2 ----

  async *serveVersion2(reader: PacketReader): AsyncGenerator<Buffer> {
    let command: string | undefined;
    let lines = 0;
    for (;;) {
      const packet = await reader.read();
      if (packet === undefined) {
        if (!lines) return;
        throw new UploadPackError('protocol error: the request ends before its arguments');
      }
      // A flush alone: the client has nothing to ask.
      if (packet === 'flush' && !lines) return;
      if (packet === 'delimiter') break;
      if (packet === 'flush') {
        // No arguments: the command reads this flush as their end.
        if (!command) throw new UploadPackError('no command requested');
        yield* this.runCommand(command, reader, true);
        return;
      }
      const line = this.line(packet);
      if (++lines > MAX_CAPABILITY_LINES) throw new UploadPackError('too many capabilities');
      if (line.startsWith('command=')) {
        const name = line.slice('command='.length);
        if (command) throw new UploadPackError(`command '${name}' requested after already requesting command '${command}'`);
        if (name !== 'ls-refs' && name !== 'fetch') throw new UploadPackError(`invalid command '${name}'`);
        command = name;
      } else if (line.startsWith('object-format=')) {
        if (line !== 'object-format=sha1') throw new UploadPackError(`unsupported object format '${line.slice('object-format='.length)}'`);
      } else if (!/^(agent|server-option|session-id)(=|$)/.test(line)) {
        throw new UploadPackError(`unknown capability '${line}'`);
      }
    }
    if (!command) throw new UploadPackError('no command requested');
    yield* this.runCommand(command, reader, false);
  }

  private runCommand(command: string, reader: PacketReader, argumentsEnded: boolean): AsyncGenerator<Buffer> {
    return command === 'ls-refs' ? this.lsRefs(reader, argumentsEnded) : this.fetch(reader, argumentsEnded);
  }

  /** The arguments of a command, up to the flush that ends them. */
  private async *commandArguments(reader: PacketReader, command: string, ended: boolean): AsyncGenerator<string> {
    if (ended) return;
    for (;;) {
      const packet = await reader.read();
      if (packet === 'flush') return;
      if (packet === undefined || typeof packet === 'string') throw new UploadPackError(`expected flush after ${command} arguments`);
      yield this.line(packet);
    }
  }

  private async *lsRefs(reader: PacketReader, argumentsEnded: boolean): AsyncGenerator<Buffer> {
    let peel = false;
    let symrefs = false;
    let unborn = false;
    let prefixes: string[] = [];
    let prefixCount = 0;
    for await (const line of this.commandArguments(reader, 'ls-refs', argumentsEnded)) {
      if (line === 'peel') peel = true;
      else if (line === 'symrefs') symrefs = true;
      else if (line === 'unborn') unborn = true;
      else if (line.startsWith('ref-prefix ')) {
        if (++prefixCount < TOO_MANY_PREFIXES) prefixes.push(line.slice('ref-prefix '.length));
      } else throw new UploadPackError(`unexpected line: '${line}'`);
    }
    if (prefixCount >= TOO_MANY_PREFIXES) prefixes = [];
    const matches = (name: string) => !prefixes.length || prefixes.some((prefix) => name.startsWith(prefix));
    const { headTarget, headOid, refs } = await this.refs();
    const packets: Buffer[] = [];
    if (matches('HEAD') && (headOid || (unborn && symrefs && headTarget))) {
      let line = headOid ? `${headOid} HEAD` : 'unborn HEAD';
      if (symrefs && headTarget) line += ` symref-target:${headTarget}`;
      const target = peel && headOid ? await peeled(this.repo, headOid) : null;
      if (target) line += ` peeled:${target}`;
      packets.push(packetLine(`${line}\n`));
    }
    for (const { name, oid } of refs) {
      if (!matches(name)) continue;
      const target = peel ? await peeled(this.repo, oid) : null;
      packets.push(packetLine(`${oid} ${name}${target ? ` peeled:${target}` : ''}\n`));
      if (packets.length >= 1024) yield Buffer.concat(packets.splice(0));
      await this.pace();
    }
    packets.push(FLUSH_PACKET);
    yield Buffer.concat(packets);
  }

  private async *fetch(reader: PacketReader, argumentsEnded: boolean): AsyncGenerator<Buffer> {
    const haves: string[] = [];
    let done = false;
    this.sideBand = MAX_PACKET_PAYLOAD_BYTES;
    for await (const line of this.commandArguments(reader, 'fetch', argumentsEnded)) {
      if (line.startsWith('want ')) this.addWant(parseOid(line.slice(5), line));
      else if (line.startsWith('have ')) {
        if (haves.length >= MAX_HAVES) throw new UploadPackError('too many haves');
        haves.push(parseOid(line.slice(5), line));
      } else if (line === 'thin-pack') this.thinPack = true;
      else if (line === 'ofs-delta') this.ofsDelta = true;
      else if (line === 'no-progress') this.noProgress = true;
      else if (line === 'include-tag') this.includeTag = true;
      else if (line === 'done') done = true;
      else if (line === 'wait-for-done') this.waitForDone = true;
      else if (line === 'deepen-relative') this.deepenRelative = true;
      // Asked only where a server offers it; this one does not, and sends no URIs.
      else if (line.startsWith('packfile-uris ')) continue;
      else if (!(await this.readShallowLine(line))) throw new UploadPackError(`unexpected line: '${line}'`);
    }
    await this.checkWants();
    if (!this.wants.length && !this.waitForDone) return;
    if (haves.length) {
      const common: string[] = [];
      for (const oid of haves) {
        if ((await this.gotOid(oid)) >= 0) common.push(oid);
        await this.pace();
      }
      if (!done) {
        const packets = [packetLine('acknowledgments\n')];
        if (!common.length) packets.push(packetLine('NAK\n'));
        for (const oid of common) packets.push(packetLine(`ACK ${oid}\n`));
        const ready = !this.waitForDone && (await this.okToGiveUp());
        if (ready) packets.push(packetLine('ready\n'), DELIMITER_PACKET);
        else packets.push(FLUSH_PACKET);
        yield Buffer.concat(packets);
        if (!ready) return;
      }
    }
    const shallowLines = await this.shallowUpdate();
    if (this.depth || this.deepenSince || this.deepenNot.length || this.shallows.size) {
      yield Buffer.concat([packetLine('shallow-info\n'), ...(shallowLines ?? []).map((line) => packetLine(`${line}\n`)), DELIMITER_PACKET]);
    }
    yield packetLine('packfile\n');
    yield* this.sendPack(true);
  }

  // ---- what the client asks for ----

  /** A packet's text; a special packet where a line is expected is an error. */
  private line(packet: Packet): string {
    if (typeof packet === 'string') throw new UploadPackError(`protocol error: unexpected ${packet} packet`);
    return lineText(packet);
  }

  private addWant(oid: string): void {
    if (this.wanted.has(oid)) return;
    if (this.wanted.size >= MAX_WANTS) throw new UploadPackError('too many wants');
    this.wanted.add(oid);
    this.wants.push(oid);
  }

  /** The shallow and deepen lines of either version; false for any other line. */
  private async readShallowLine(line: string): Promise<boolean> {
    if (line.startsWith('shallow ')) {
      const oid = parseOid(line.slice('shallow '.length), line);
      const type = await this.repo.objectType(oid);
      // A commit this repository lacks is no concern of the walk's.
      if (!type) return true;
      if (type !== 'commit') throw new UploadPackError(`invalid shallow object ${oid}`);
      if (this.shallows.size >= MAX_SHALLOWS) throw new UploadPackError('too many shallow lines');
      this.shallows.add(oid);
      return true;
    }
    if (line.startsWith('deepen ')) {
      this.depth = parseDepth(line.slice('deepen '.length), line);
      return true;
    }
    if (line.startsWith('deepen-since ')) {
      this.deepenSince = parseSince(line.slice('deepen-since '.length), line);
      return true;
    }
    if (line.startsWith('deepen-not ')) {
      if (this.deepenNot.length >= MAX_DEEPEN_NOT) throw new UploadPackError('too many deepen-not lines');
      this.deepenNot.push(await this.expandReference(line.slice('deepen-not '.length), line));
      return true;
    }
    return false;
  }

  /** The one reference a short name means, as git expands a revision (`v1` → `refs/tags/v1`). */
  private async expandReference(name: string, line: string): Promise<string> {
    const { refs } = await this.refs();
    const names = new Set(refs.map((ref) => ref.name));
    const candidates = [
      name,
      `refs/${name}`,
      `refs/tags/${name}`,
      `refs/heads/${name}`,
      `refs/remotes/${name}`,
      `refs/remotes/${name}/HEAD`,
    ];
    const found = [...new Set(candidates.filter((candidate) => names.has(candidate)))];
    if (found.length !== 1) throw new UploadPackError(`ambiguous deepen-not: ${line}`);
    return found[0];
  }

  private refs(): Promise<References> {
    return (this.references ??= readReferences(this.repo));
  }

  /**
   * Every want must be an object the repository has, and a reference's tip or a commit a tip reaches: what git checks
   * for a stateless client (whose references may have moved since they were advertised), in every version here.
   */
  private async checkWants(): Promise<void> {
    const { headOid, refs } = await this.refs();
    const tips = new Set(refs.map((ref) => ref.oid));
    if (headOid) tips.add(headOid);
    const others: string[] = [];
    for (const oid of this.wants) {
      const type = await this.repo.objectType(oid);
      if (!type || (!tips.has(oid) && type !== 'commit')) throw new UploadPackError(`upload-pack: not our ref ${oid}`);
      if (!tips.has(oid)) others.push(oid);
    }
    const unreachable = others.length ? await this.reachable().missing(others) : undefined;
    if (unreachable) throw new UploadPackError(`upload-pack: not our ref ${unreachable}`);
  }

  private reachable(): Reachability {
    return (this.reachability ??= new Reachability(this, async () => {
      const { headOid, refs } = await this.refs();
      const commits: string[] = [];
      for (const oid of [...(headOid ? [headOid] : []), ...refs.map((ref) => ref.oid)]) {
        const commit = await this.repo.peelToCommit(oid);
        if (commit) commits.push(commit);
      }
      return commits;
    }));
  }

  // ---- negotiation ----

  /** A have: -1 when the repository lacks it; 1 when it is new to what the client has, 0 when it was known (git's got_oid). */
  private async gotOid(oid: string): Promise<number> {
    const type = await this.repo.objectType(oid);
    if (!type) return -1;
    let knew = false;
    if (type === 'commit') {
      const node = await this.node(oid);
      knew = this.theyHave.has(oid);
      if (!this.oldestHave || node.time < this.oldestHave) this.oldestHave = node.time;
      this.theyHave.add(oid);
      for (const parent of node.parents) this.theyHave.add(parent);
      this.notReaching = new Set();
    }
    if (knew) return 0;
    this.haveObjects.push(oid);
    return 1;
  }

  /**
   * Whether every want reaches a commit the client has, through commits no older than its oldest have (git's
   * ok_to_give_up): the pack can then be made without more haves.
   */
  private async okToGiveUp(): Promise<boolean> {
    if (!this.haveObjects.length) return false;
    // Asked again after each have the repository lacks: the answer stands until what the client has grows.
    const asked = `${this.theyHave.size}:${this.oldestHave}`;
    if (this.lastGiveUp?.asked === asked) return this.lastGiveUp.answer;
    let answer = true;
    for (const want of this.wants) {
      if (this.wantsReaching.has(want)) continue;
      const commit = await this.repo.peelToCommit(want);
      // What is no commit cannot be told by its ancestry: it is not waited for.
      if (commit && !(await this.reachesCommon(commit))) {
        answer = false;
        break;
      }
      this.wantsReaching.add(want);
    }
    this.lastGiveUp = { asked, answer };
    return answer;
  }

  /**
   * Whether a commit reaches one the client has, through commits no older than its oldest have. Within a budget of
   * commits for the whole request: past it the answer is no (negotiation goes on, and the client says when it is
   * done), so that haves that alternate between known and unknown cannot make the walks quadratic.
   */
  private async reachesCommon(start: string): Promise<boolean> {
    const visited = new Set<string>();
    const pending = [start];
    while (pending.length) {
      const oid = pending.pop()!;
      if (this.theyHave.has(oid)) return true;
      if (visited.has(oid) || this.notReaching.has(oid)) continue;
      if (--this.givingUpBudget < 0) return false;
      visited.add(oid);
      await this.pace();
      const node = await this.node(oid);
      if (node.time < this.oldestHave) continue;
      if (!this.grafts.has(oid) && !this.shallows.has(oid)) pending.push(...node.parents);
    }
    for (const oid of visited) this.notReaching.add(oid);
    return false;
  }

  // ---- shallow ----

  /**
   * The shallow lines to send (`shallow X`, `unshallow X`) for a deepen request, undefined when it asks none; the
   * walk's grafts, unshallowed commits' parents (wanted) and the unshallowed commits (the client's) set on the way
   * (git's deepen, deepen_by_rev_list, send_shallow and send_unshallow).
   */
  private async shallowUpdate(): Promise<string[] | undefined> {
    const deepenByWalk = this.deepenSince > 0 || this.deepenNot.length > 0;
    if (this.depth > 0 && deepenByWalk) throw new UploadPackError('deepen and deepen-since (or deepen-not) cannot be used together');
    if (!this.depth && !deepenByWalk) {
      for (const oid of this.shallows) this.grafts.add(oid);
      return undefined;
    }
    let boundary: string[] = [];
    let notShallow = new Set<string>();
    if (this.depth === INFINITE_DEPTH) notShallow = new Set(await this.reachableShallows());
    else if (this.depth > 0) {
      const heads = this.deepenRelative ? await this.reachableShallows() : await this.wantedCommits();
      ({ boundary, notShallow } = await this.shallowByDepth(heads, this.deepenRelative ? this.depth + 1 : this.depth));
    } else ({ boundary, notShallow } = await this.shallowByWalk());
    const lines: string[] = [];
    for (const oid of boundary) {
      if (this.shallows.has(oid) || notShallow.has(oid)) continue;
      lines.push(`shallow ${oid}`);
      this.grafts.add(oid);
    }
    for (const oid of this.shallows) {
      if (notShallow.has(oid)) {
        lines.push(`unshallow ${oid}`);
        for (const parent of (await this.node(oid)).parents) this.addWant(parent);
        this.extraEdges.push(oid);
      }
      // The walk keeps to the client's history: what lies beyond its shallow commits is not its.
      this.grafts.add(oid);
    }
    return lines;
  }

  /** The commits the wants are or name (annotated tags followed). */
  private async wantedCommits(): Promise<string[]> {
    const commits: string[] = [];
    for (const want of this.wants) {
      const commit = await this.repo.peelToCommit(want);
      if (commit && !commits.includes(commit)) commits.push(commit);
    }
    return commits;
  }

  /** The client's shallow commits that a reference reaches (deepen-relative starts from those alone, as git does). */
  private async reachableShallows(): Promise<string[]> {
    const reachable = this.reachable();
    const found: string[] = [];
    for (const oid of this.shallows) if (!(await reachable.missing([oid]))) found.push(oid);
    return found;
  }

  /**
   * Commits within `depth` of the heads (a head is 1 deep), by their shortest path: those less deep are whole, those
   * `depth` deep with parents are the new shallow boundary (git's get_shallow_commits).
   */
  private async shallowByDepth(heads: string[], depth: number): Promise<{ boundary: string[]; notShallow: Set<string> }> {
    const depths = new Map<string, number>(heads.map((oid) => [oid, 1]));
    const boundary: string[] = [];
    const notShallow = new Set<string>();
    const pending = [...heads];
    for (let at = 0; at < pending.length; at++) {
      await this.pace();
      const oid = pending[at];
      const level = depths.get(oid)!;
      const node = await this.node(oid);
      if (level >= depth) {
        if (node.parents.length) boundary.push(oid);
        continue;
      }
      notShallow.add(oid);
      for (const parent of node.parents) {
        if (depths.has(parent)) continue;
        depths.set(parent, level + 1);
        pending.push(parent);
      }
    }
    return { boundary, notShallow };
  }

  /**
   * Commits the wants reach through commits no older than `deepen-since` and not reached by the `deepen-not`
   * references; those with a parent left out are the boundary (git's get_shallow_commits_by_rev_list).
   */
  private async shallowByWalk(): Promise<{ boundary: string[]; notShallow: Set<string> }> {
    const excluded = new Set<string>();
    const { refs } = await this.refs();
    const pending: string[] = [];
    for (const name of this.deepenNot) {
      const commit = await this.repo.peelToCommit(refs.find((ref) => ref.name === name)!.oid);
      if (commit) pending.push(commit);
    }
    while (pending.length) {
      const oid = pending.pop()!;
      if (excluded.has(oid)) continue;
      excluded.add(oid);
      await this.pace();
      pending.push(...(await this.node(oid)).parents);
    }
    const included = new Set<string>();
    const walk = (await this.wantedCommits()).filter((oid) => !excluded.has(oid));
    while (walk.length) {
      const oid = walk.pop()!;
      if (included.has(oid)) continue;
      await this.pace();
      const node = await this.node(oid);
      if (node.time < this.deepenSince) continue;
      included.add(oid);
      for (const parent of node.parents) if (!excluded.has(parent) && !included.has(parent)) walk.push(parent);
    }
    if (!included.size) throw new UploadPackError('no commits selected for shallow requests');
    const boundary: string[] = [];
    for (const oid of included) if ((await this.node(oid)).parents.some((parent) => !included.has(parent))) boundary.push(oid);
    for (const oid of boundary) included.delete(oid);
    return { boundary, notShallow: included };
  }

  // ---- the pack ----

  private async *sendPack(version2: boolean): AsyncGenerator<Buffer> {
    this.packStarted = true;
    const progress = this.sideBand > 0 && !this.noProgress;
    const release = await packSlot(this.signal);
    try {
      const packs = await StoredPacks.open(this.repo.gitdir);
      try {
        yield* this.enumerateAndWrite(packs, progress);
      } finally {
        await packs.close();
      }
    } finally {
      release();
    }
    // Side-band ends with a flush (version 2's response too); a pack sent bare ends with itself.
    if (this.sideBand || version2) yield FLUSH_PACKET;
  }

  private async *enumerateAndWrite(packs: StoredPacks, progress: boolean): AsyncGenerator<Buffer> {
    const enumerating = this.enumerate(packs);
    enumerating.catch(() => {});
    let silentFor = 0;
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        enumerating.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), PROGRESS_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      if (finished) break;
      silentFor += PROGRESS_MS;
      if (progress) yield this.band(2, Buffer.from(`Enumerating objects: ${this.counted}\r`));
      else if (this.sideBand && silentFor >= KEEPALIVE_MS) {
        // An empty packet of pack data: the client knows the server is at work.
        silentFor = 0;
        yield Buffer.from('0005\x01');
      }
    }
    const { oids, clientHas } = await enumerating;
    if (progress) {
      const count = oids.length;
      yield this.band(2, Buffer.from(`Enumerating objects: ${count}, done.\nCounting objects: 100% (${count}/${count}), done.\n`));
    }
    const pack = writePack(this.objects, packs, oids, {
      ofsDelta: this.ofsDelta,
      clientHas: this.thinPack ? clientHas : undefined,
      signal: this.signal,
    });
    let next = await pack.next();
    while (!next.done) {
      yield this.sideBand ? this.band(1, next.value) : next.value;
      next = await pack.next();
    }
    const { total, deltas, reused, reusedDeltas } = next.value;
    if (progress)
      yield this.band(2, Buffer.from(`Total ${total} (delta ${deltas}), reused ${reused} (delta ${reusedDeltas}), pack-reused 0\n`));
  }

  /** `data` on a side-band channel (1: pack data, 2: progress, 3: a fatal error), in packets as long as the client takes. */
  private band(channel: 1 | 2 | 3, data: Buffer): Buffer {
    const size = (this.sideBand || MAX_PACKET_PAYLOAD_BYTES) - 1;
    const count = Math.max(1, Math.ceil(data.length / size));
    const out = Buffer.allocUnsafe(data.length + count * 5);
    let at = 0;
    for (let start = 0; start < data.length || at === 0; start += size) {
      const piece = data.subarray(start, start + size);
      out.write((piece.length + 5).toString(16).padStart(4, '0'), at, 'latin1');
      out[at + 4] = channel;
      piece.copy(out, at + 5);
      at += piece.length + 5;
    }
    return out;
  }

  /**
   * The objects the wants reach that the client's haves do not, within the shallow boundary (git's `pack-objects
   * --revs --thin`), and annotated tags that point at what is sent (`include-tag`). From the pack's reachability
   * bitmap when it has one and the clone is not shallow, as git does; by a walk otherwise (or should the bitmap be
   * damaged).
   */
  private async enumerate(packs: StoredPacks): Promise<Enumerated> {
    const roots = await this.roots();
    let enumerated: Enumerated | undefined;
    if (!this.grafts.size && !this.extraEdges.length) {
      const bitmap = await packs.bitmap();
      if (bitmap) enumerated = await this.enumerateByBitmap(bitmap, roots).catch(ignoreCorrupt);
    }
    enumerated ??= await this.enumerateByWalk(roots);
    if (this.includeTag) {
      const { refs } = await this.refs();
      const listed = new Set(enumerated.oids);
      for (const { name, oid } of refs) {
        if (!name.startsWith('refs/tags/') || listed.has(oid) || (await this.repo.objectType(oid)) !== 'tag') continue;
        const chain: string[] = [];
        let target = oid;
        for (let depth = 0; depth < 10; depth++) {
          const tag = await this.repo.readAnnotatedTag(target);
          if (!tag) break;
          chain.push(target);
          target = tag.object;
          if (tag.type !== 'tag') break;
        }
        if (!listed.has(target)) continue;
        for (const tag of chain) {
          if (listed.has(tag)) continue;
          listed.add(tag);
          enumerated.oids.push(tag);
        }
        await this.pace();
      }
    }
    this.counted = enumerated.oids.length;
    return enumerated;
  }

  /** What the wants are (annotated tags followed to what they name) and the commits the client's haves are or name. */
  private async roots(): Promise<Roots> {
    const roots: Roots = { tags: [], commits: [], trees: [], blobs: [], haveCommits: [] };
    for (const want of this.wants) {
      let oid = want;
      for (let depth = 0; depth < 10; depth++) {
        const type = await this.repo.objectType(oid);
        if (type === 'tag') {
          roots.tags.push(oid);
          const tag = await this.repo.readAnnotatedTag(oid);
          if (!tag || !OID.test(tag.object)) throw new CorruptObjectError(`the tag ${oid} names no object`);
          oid = tag.object;
          continue;
        }
        if (type === 'commit') roots.commits.push(oid);
        else if (type === 'tree') roots.trees.push(oid);
        else if (type === 'blob') roots.blobs.push(oid);
        break;
      }
    }
    for (const have of this.haveObjects) {
      const commit = await this.repo.peelToCommit(have);
      if (commit) roots.haveCommits.push(commit);
    }
    return roots;
  }

  /** By a walk: commits by date, then trees and blobs along the paths where the new commits' trees differ from the client's. */
  private async enumerateByWalk(roots: Roots): Promise<Enumerated> {
    const sent = new Set<string>();
    const oids: string[] = [];
    const send = (oid: string) => {
      if (sent.has(oid)) return;
      sent.add(oid);
      oids.push(oid);
      this.counted = oids.length;
    };
    const clientHas = new Set<string>(this.haveObjects);
    for (const oid of [...roots.tags, ...roots.blobs]) send(oid);
    const { commits, edges } = await this.walkCommits(roots.commits, [...this.extraEdges, ...roots.haveCommits]);
    for (const node of commits) send(node.oid);
    const edgeTrees: string[] = [];
    for (const oid of new Set([...edges, ...this.extraEdges])) {
      clientHas.add(oid);
      const tree = (await this.node(oid)).tree;
      clientHas.add(tree);
      edgeTrees.push(tree);
    }
    await this.walkTrees([...commits.map((node) => node.tree), ...roots.trees], edgeTrees, send, clientHas);
    return { oids, clientHas: (oid) => clientHas.has(oid) };
  }

  /**
   * By the bitmap: what the haves reach, then what the wants reach beyond it; each a union of the bitmaps of the
   * commits that have one, and a walk of the commits and trees since (objects outside the bitmap's pack kept
   * apart), which stops at whatever the union holds already (git's prepare_bitmap_walk).
   */
  private async enumerateByBitmap(bitmap: PackBitmap, roots: Roots): Promise<Enumerated> {
    const theirs = await this.reachableBits(bitmap, { tags: [], commits: roots.haveCommits, trees: [], blobs: [] });
    const ours = await this.reachableBits(bitmap, roots, theirs);
    const oids: string[] = [];
    for (let word = 0; word < ours.bits.length; word++) ours.bits[word] &= ~theirs.bits[word];
    for (const bit of setBits(ours.bits)) {
      oids.push(bitmap.oidOf(bit));
      if (oids.length % 4096 === 0) await this.pace();
    }
    for (const oid of ours.extra) if (!theirs.extra.has(oid)) oids.push(oid);
    const clientHas = (oid: string) => {
      const bit = bitmap.bitOf(oid);
      return bit >= 0 ? hasBit(theirs.bits, bit) : theirs.extra.has(oid);
    };
    return { oids, clientHas };
  }

  /** What `roots` reach, `base` and all it reaches included: the bitmap's pack's objects as bits, any other by ID. */
  private async reachableBits(
    bitmap: PackBitmap,
    roots: Omit<Roots, 'haveCommits'>,
    base?: { bits: ObjectBits; extra: Set<string> },
  ): Promise<{ bits: ObjectBits; extra: Set<string> }> {
    const bits = base ? base.bits.slice() : bitmap.empty();
    const extra = new Set(base?.extra);
    /** Marks an object reached; false when it was already. */
    const reach = (oid: string) => {
      const bit = bitmap.bitOf(oid);
      if (bit < 0) return extra.has(oid) ? false : Boolean(extra.add(oid));
      if (hasBit(bits, bit)) return false;
      setBit(bits, bit);
      return true;
    };
    for (const oid of [...roots.tags, ...roots.blobs]) reach(oid);
    const trees = [...roots.trees];
    const commits = [...roots.commits];
    while (commits.length) {
      await this.pace();
      const oid = commits.pop()!;
      const bit = bitmap.bitOf(oid);
      if (bit >= 0 ? hasBit(bits, bit) : extra.has(oid)) continue;
      const stored = bit >= 0 ? bitmap.reachableFrom(oid) : undefined;
      if (stored) {
        for (let word = 0; word < bits.length; word++) bits[word] |= stored[word];
        continue;
      }
      reach(oid);
      const node = await this.node(oid);
      trees.push(node.tree);
      commits.push(...node.parents);
    }
    while (trees.length) {
      const tree = trees.pop()!;
      if (!reach(tree)) continue;
      for (const entry of await this.treeEntries(tree)) {
        if (isSubmodule(entry.mode)) continue;
        if (isTree(entry.mode)) trees.push(entry.oid);
        else reach(entry.oid);
      }
    }
    this.counted = bits.reduce((count, word) => count + popCount(word), extra.size);
    return { bits, extra };
  }

  /**
   * The commits the interesting ones reach that the uninteresting ones do not (grafted commits' parents not
   * followed), newest first, and the edges: uninteresting parents of those sent, which the client has. Walked by
   * date as git's limit_list does, until only uninteresting commits are left (and SLOP more, for skewed dates).
   */
  private async walkCommits(interesting: string[], uninteresting: string[]): Promise<{ commits: CommitNode[]; edges: Set<string> }> {
    const flags = new Map<string, number>();
    const queue = new CommitQueue();
    let interestingQueued = 0;
    const push = async (oid: string, flag: number) => {
      flags.set(oid, flag | SEEN | QUEUED);
      if (!(flag & UNINTERESTING)) interestingQueued += 1;
      queue.push(await this.node(oid));
    };
    const parentsOf = (node: CommitNode) => (this.grafts.has(node.oid) ? [] : node.parents);
    /** Marks commits uninteresting, and what walked commits reach from them (git's mark_parents_uninteresting). */
    const markUninteresting = async (start: readonly string[]) => {
      const pending = [...start];
      while (pending.length) {
        const oid = pending.pop()!;
        const flag = flags.get(oid);
        if (flag === undefined) {
          await push(oid, UNINTERESTING);
          continue;
        }
        if (flag & UNINTERESTING) continue;
        flags.set(oid, flag | UNINTERESTING);
        if (flag & QUEUED) interestingQueued -= 1;
        if (flag & POPPED) pending.push(...parentsOf(this.nodes.get(oid)!));
      }
    };
    for (const oid of uninteresting) if (!flags.has(oid)) await push(oid, UNINTERESTING);
    for (const oid of interesting) if (!flags.has(oid)) await push(oid, 0);

    const output: CommitNode[] = [];
    // The time of the last commit sent: uninteresting commits newer than it may still take it back.
    let last = Number.POSITIVE_INFINITY;
    let slop = SLOP;
    while (queue.size) {
      await this.pace();
      const node = queue.pop();
      const flag = flags.get(node.oid)!;
      flags.set(node.oid, (flag & ~QUEUED) | POPPED);
      if (flag & UNINTERESTING) {
        await markUninteresting(parentsOf(node));
        // git's still_interesting: done once only uninteresting commits older than the last one sent are left, SLOP more.
        if (!queue.size) break;
        slop = last <= queue.peekTime() || interestingQueued > 0 ? SLOP : slop - 1;
        if (!slop) break;
        continue;
      }
      interestingQueued -= 1;
      output.push(node);
      last = node.time;
      for (const parent of parentsOf(node)) if (!flags.has(parent)) await push(parent, 0);
    }
    const commits = output.filter((node) => !(flags.get(node.oid)! & UNINTERESTING));
    const edges = new Set<string>();
    for (const node of commits) for (const parent of parentsOf(node)) if (flags.get(parent)! & UNINTERESTING) edges.add(parent);
    return { commits, edges };
  }

  /**
   * The trees and blobs of `interesting` trees that the client lacks, walked path by path beside the `uninteresting`
   * trees it has at the same paths (git's sparse walk): where no new tree differs from the client's, nothing is read;
   * where one does, what the client's trees hold there is marked had (`clientHas`) and not sent. An object the
   * client has elsewhere may be sent again: harmless, and cheaper than reading all its trees.
   */
  private async walkTrees(
    interesting: string[],
    uninteresting: string[],
    send: (oid: string) => void,
    clientHas: Set<string>,
  ): Promise<void> {
    const sent = new Set<string>();
    const pending = [{ interesting, uninteresting }];
    while (pending.length) {
      const group = pending.pop()!;
      const fresh = [...new Set(group.interesting)].filter((oid) => !clientHas.has(oid) && !sent.has(oid));
      if (!fresh.length) continue;
      const theirs = new Map<string, string[]>();
      for (const tree of new Set(group.uninteresting)) {
        for (const entry of await this.treeEntries(tree)) {
          if (isSubmodule(entry.mode)) continue;
          clientHas.add(entry.oid);
          if (isTree(entry.mode)) appendTo(theirs, entry.name.toString('latin1'), entry.oid);
        }
      }
      const ours = new Map<string, string[]>();
      for (const tree of fresh) {
        sent.add(tree);
        send(tree);
        for (const entry of await this.treeEntries(tree)) {
          if (isSubmodule(entry.mode)) continue;
          if (isTree(entry.mode)) appendTo(ours, entry.name.toString('latin1'), entry.oid);
          else if (!clientHas.has(entry.oid)) send(entry.oid);
        }
      }
      for (const [name, trees] of ours) pending.push({ interesting: trees, uninteresting: theirs.get(name) ?? [] });
    }
  }

  private async treeEntries(oid: string): Promise<RawTreeEntry[]> {
    await this.pace();
    const object = this.objects.readInMemory(oid) ?? (await this.objects.read(oid));
    if (object.type !== 'tree') throw new CorruptObjectError(`${oid} is a ${object.type}, not a tree`);
    return parseTree(object.content);
  }

  /** A commit's tree, parents and time, kept for the request. */
  async node(oid: string): Promise<CommitNode> {
    let node = this.nodes.get(oid);
    if (!node) {
      node = await this.repo.commitNode(oid);
      this.nodes.set(oid, node);
    }
    return node;
  }

  /** Stops once the request is; lets the event loop turn after a while of work served from memory. */
  async pace(): Promise<void> {
    this.signal.throwIfAborted();
    if (performance.now() - this.turnedAt < TURN_MS) return;
    await nextTurn();
    this.turnedAt = performance.now();
    this.signal.throwIfAborted();
  }
}

function appendTo(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Which commits the references reach: walked from their tips, newest first, as far as a question needs and no further. */
class Reachability {
  private readonly seen = new Set<string>();
  private readonly queue = new CommitQueue();
  private started = false;

  constructor(
    private readonly session: UploadPack,
    private readonly tips: () => Promise<string[]>,
  ) {}

  /** The first of `commits` that no reference reaches; undefined when they all reach them. */
  async missing(commits: string[]): Promise<string | undefined> {
    if (!this.started) {
      this.started = true;
      for (const tip of await this.tips()) await this.add(tip);
    }
    while (this.queue.size && commits.some((oid) => !this.seen.has(oid))) {
      await this.session.pace();
      for (const parent of this.queue.pop().parents) await this.add(parent);
    }
    return commits.find((oid) => !this.seen.has(oid));
  }

  private async add(oid: string): Promise<void> {
    if (this.seen.has(oid)) return;
    this.seen.add(oid);
    this.queue.push(await this.session.node(oid));
  }
}

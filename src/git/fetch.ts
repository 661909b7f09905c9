import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { indexPackInWorker, PackedCommits, PackIndexError } from './index-pack.js';
import { gitFs } from './fs.js';
import { PacketReader } from './pkt-line.js';
import { isValidReferenceName } from './refs.js';
import type { RemoteHttp } from './remote-http.js';

// A mirror fetched over git's smart HTTP protocol (version 0/1 of upload-pack: gitprotocol-http, gitprotocol-pack):
// the references advertised, every branch and tag asked for, and the pack received stored as it came, with an
// index built off the event loop (src/git/index-pack.ts). Every request goes through the import's own client
// (src/git/remote-http.ts), which alone decides what may be reached.

/** The remote answered with something that is not git's smart HTTP protocol, or reported an error. */
export class RemoteProtocolError extends Error {
  override readonly name = 'RemoteProtocolError';
}

const ZERO_ID = '0'.repeat(40);

/** What the remote advertises: its references (name → ID), annotated tags' peeled IDs, its capabilities, HEAD. */
export interface Advertisement {
  references: Map<string, string>;
  peeled: Map<string, string>;
  capabilities: Set<string>;
  /** The branch HEAD names (from the `symref=HEAD:...` capability), when it says. */
  head?: string;
  /** The ID HEAD holds. */
  headId?: string;
}

const packet = (text: string): string => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;

/** The remote's answer to a request, checked: a 200 of git's own content type. */
async function ask(
  http: RemoteHttp,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: Buffer },
  contentType: string,
): Promise<AsyncIterableIterator<Uint8Array>> {
  const { body: requestBody } = init;
  const response = await http.request({
    url,
    method: init.method,
    // Some hosts answer the smart protocol only to a client that says it is git.
    headers: { 'user-agent': 'git/forgekit', ...init.headers },
    body: requestBody
      ? (async function* () {
          yield requestBody;
        })()
      : undefined,
  });
  const body = response.body ?? (async function* (): AsyncIterableIterator<Uint8Array> {})();
  if (response.statusCode !== 200 || response.headers?.['content-type']?.split(';')[0].trim() !== contentType) {
    // Its body is let go unread: the client closes its connection.
    await body.return?.();
    throw new RemoteProtocolError(`the remote answered ${response.statusCode}`);
  }
  return body;
}

/** The references the remote advertises (`GET info/refs?service=git-upload-pack`). */
export async function readAdvertisement(http: RemoteHttp, remote: string, headers: Record<string, string>): Promise<Advertisement> {
  const body = await ask(
    http,
    `${remote}/info/refs?service=git-upload-pack`,
    { method: 'GET', headers: { ...headers, accept: 'application/x-git-upload-pack-advertisement' } },
    'application/x-git-upload-pack-advertisement',
  );
  const reader = new PacketReader(body, { error: (message) => new RemoteProtocolError(message) });
  const first = await reader.next();
  if (!first || !/^# service=git-upload-pack\n?$/.test(first.toString('latin1')))
    throw new RemoteProtocolError('not an upload-pack advertisement');
  if ((await reader.next()) !== null) throw new RemoteProtocolError('no flush after the service line');
  const advertisement: Advertisement = { references: new Map(), peeled: new Map(), capabilities: new Set() };
  for (let line = await reader.next(), index = 0; line; line = await reader.next(), index++) {
    let text = line.toString('utf8');
    if (index === 0) {
      const nul = text.indexOf('\0');
      if (nul < 0) throw new RemoteProtocolError('no capabilities advertised');
      for (const capability of text
        .slice(nul + 1)
        .trim()
        .split(' '))
        if (capability) advertisement.capabilities.add(capability);
      text = text.slice(0, nul);
    }
    const match = /^([0-9a-f]{40}) (\S+)\n?$/.exec(text);
    if (!match) throw new RemoteProtocolError('an advertised reference is not one');
    const [, id, name] = match;
    if (name === 'capabilities^{}' && id === ZERO_ID) continue;
    if (name === 'HEAD') advertisement.headId = id;
    else if (name.endsWith('^{}')) advertisement.peeled.set(name.slice(0, -3), id);
    else advertisement.references.set(name, id);
  }
  for (const capability of advertisement.capabilities) {
    if (capability.startsWith('symref=HEAD:')) advertisement.head = capability.slice('symref=HEAD:'.length);
  }
  return advertisement;
}

/** What a mirror keeps of the remote: its branches and tags (names git accepts), nothing else it advertises. */
function mirrored(advertisement: Advertisement): [string, string][] {
  return [...advertisement.references]
    .filter(([name]) => (name.startsWith('refs/heads/') || name.startsWith('refs/tags/')) && isValidReferenceName(name))
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * The pack of every object the wanted IDs reach (`POST git-upload-pack`), written to `path` as it arrives: the
 * side-band's first band, or the stream itself without side-band. The remote's error band fails it.
 */
async function receivePack(
  http: RemoteHttp,
  remote: string,
  headers: Record<string, string>,
  advertisement: Advertisement,
  wanted: string[],
  path: string,
): Promise<void> {
  const offered = advertisement.capabilities;
  const sideBand = offered.has('side-band-64k') ? 'side-band-64k' : offered.has('side-band') ? 'side-band' : undefined;
  const capabilities = [
    sideBand,
    offered.has('ofs-delta') ? 'ofs-delta' : undefined,
    offered.has('no-progress') ? 'no-progress' : undefined,
    'agent=forgekit',
  ]
    .filter(Boolean)
    .join(' ');
  const lines = wanted.map((id, index) => packet(index === 0 ? `want ${id} ${capabilities}\n` : `want ${id}\n`));
  const request = Buffer.from(`${lines.join('')}0000${packet('done\n')}`);
  const body = await ask(
    http,
    `${remote}/git-upload-pack`,
    {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-git-upload-pack-request', accept: 'application/x-git-upload-pack-result' },
      body: request,
    },
    'application/x-git-upload-pack-result',
  );
  const reader = new PacketReader(body, { error: (message) => new RemoteProtocolError(message) });
  // Having sent no `have`, the remote acknowledges nothing: NAK, then the pack.
  const nak = await reader.next();
  if (nak?.toString('latin1').trim() !== 'NAK') throw new RemoteProtocolError('no NAK before the pack');
  const file = await open(path, 'wx');
  try {
    if (!sideBand) {
      for await (const chunk of reader.rest()) await file.write(chunk);
    } else {
      for (;;) {
        const line = await reader.next();
        if (line === undefined || line === null) break;
        if (!line.length) continue;
        if (line[0] === 1) await file.write(line.subarray(1));
        else if (line[0] === 3) throw new RemoteProtocolError(`the remote failed: ${line.toString('utf8', 1).trim()}`);
        else if (line[0] !== 2) throw new RemoteProtocolError('an unknown side-band');
      }
    }
  } finally {
    await file.close();
  }
}

/**
 * `gitdir` (a new, empty bare repository) made a mirror of the remote's branches and tags, and HEAD as the
 * remote's: the pack it sends stored as it is with its index, the references written to `packed-refs`. A pack
 * that lacks an object a reference names, or that is damaged or thin, is refused (PackIndexError). Resolves to the
 * commits the indexer read on its way, for the commit-graph to be written without reading them again.
 */
export async function fetchMirror(
  gitdir: string,
  http: RemoteHttp,
  remote: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<PackedCommits> {
  const advertisement = await readAdvertisement(http, remote, headers);
  const references = mirrored(advertisement);
  const wanted = [...new Set(references.map(([, id]) => id))];
  let commits = new PackedCommits(Buffer.alloc(0));
  if (wanted.length) {
    const directory = join(gitdir, 'objects', 'pack');
    await mkdir(directory, { recursive: true });
    const received = join(directory, `tmp_pack_${randomBytes(6).toString('hex')}`);
    try {
      await receivePack(http, remote, headers, advertisement, wanted, received);
      signal?.throwIfAborted();
      const indexed = await indexPackInWorker(received, wanted, signal);
      if (indexed.missing.length) throw new PackIndexError(`the pack lacks ${indexed.missing.length} of the objects the references name`);
      // The index goes in last, as git does it: a pack is found through its index.
      const name = join(directory, `pack-${indexed.checksum}`);
      await rename(received, `${name}.pack`);
      await writeFile(`${name}.idx`, indexed.index);
      commits = new PackedCommits(indexed.commits);
    } finally {
      await rm(received, { force: true });
    }
  }
  const lines = ['# pack-refs with: peeled sorted \n'];
  for (const [name, id] of references) {
    lines.push(`${id} ${name}\n`);
    const peeled = advertisement.peeled.get(name);
    if (peeled && name.startsWith('refs/tags/')) lines.push(`^${peeled}\n`);
  }
  if (references.length) await gitFs.promises.writeFile(join(gitdir, 'packed-refs'), lines.join(''));
  // HEAD as the remote has it; an old remote that does not say: the branch it points at, master first (as git guesses).
  const branches = new Map(references.filter(([name]) => name.startsWith('refs/heads/')));
  let head = advertisement.head && branches.has(advertisement.head) ? advertisement.head : undefined;
  if (!head && advertisement.headId) {
    const candidates = [...branches].filter(([, id]) => id === advertisement.headId).map(([name]) => name);
    head = candidates.includes('refs/heads/master') ? 'refs/heads/master' : candidates[0];
  }
  if (head) await gitFs.promises.writeFile(join(gitdir, 'HEAD'), `ref: ${head}\n`);
  return commits;
}

/**
 * git's upload-pack served by forgekit (src/git/upload-pack.ts) to native git over smart HTTP: clones and fetches,
 * shallow ones, negotiation as git's own upload-pack answers it, bad requests.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PacketReader } from '../src/git/pkt-line.js';
import type { Repository } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import {
  advertiseUploadPack,
  requestedProtocol,
  UPLOAD_PACK_ADVERTISEMENT_TYPE,
  UPLOAD_PACK_RESULT_TYPE,
  uploadPack,
} from '../src/git/upload-pack.js';
import { fsck, hasGit } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-upload-pack-'));
const store = new RepositoryStore({ default: root });
let counter = 0;

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  HOME: root,
};
const execFileAsync = promisify(execFile);
/** git, without holding the event loop (the server answering it runs in this process). */
const git = async (args: string[], cwd?: string) =>
  (await execFileAsync('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
/** git run to fail: its error output. */
const gitFails = (args: string[], cwd?: string) =>
  execFileAsync('git', args, { cwd, env }).then(
    () => {
      throw new Error(`git ${args.join(' ')} succeeded`);
    },
    (error: { stderr: string }) => error.stderr,
  );
const gitSync = (args: string[], cwd?: string) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();

/** The repositories served, by name, and the object count of each pack sent. */
const served = new Map<string, Repository>();
const packs: number[] = [];
let server: Server;
let base: string;

/** The object count in the header of the pack a response carries on side-band 1; undefined when it carries none. */
async function packCount(body: Buffer): Promise<number | undefined> {
  const reader = new PacketReader([body]);
  const data: Buffer[] = [];
  for (let packet = await reader.read(); packet !== undefined; packet = await reader.read()) {
    if (typeof packet !== 'string' && packet[0] === 1) data.push(packet.subarray(1));
  }
  const pack = Buffer.concat(data);
  return pack.toString('latin1', 0, 4) === 'PACK' ? pack.readUInt32BE(8) : undefined;
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const url = new URL(request.url!, 'http://localhost');
    const match = /^\/(.+)\.git\/(info\/refs|git-upload-pack)$/.exec(url.pathname);
    const repo = match && served.get(match[1]);
    if (!repo) return void response.writeHead(404).end();
    const protocol = requestedProtocol(request.headers['git-protocol']);
    if (match[2] === 'info/refs') {
      if (url.searchParams.get('service') !== 'git-upload-pack') return void response.writeHead(403).end();
      const body = await advertiseUploadPack(repo, protocol);
      response.writeHead(200, { 'Content-Type': UPLOAD_PACK_ADVERTISEMENT_TYPE, 'Cache-Control': 'no-cache' });
      return void response.end(body);
    }
    const body = request.headers['content-encoding'] === 'gzip' ? request.pipe(createGunzip()) : request;
    response.writeHead(200, { 'Content-Type': UPLOAD_PACK_RESULT_TYPE, 'Cache-Control': 'no-cache' });
    const sent: Buffer[] = [];
    const answer = uploadPack(repo, body, protocol, { onError: (error) => console.error(error) });
    answer.on('data', (chunk: Buffer) => sent.push(chunk));
    await pipeline(answer, response);
    const count = await packCount(Buffer.concat(sent));
    if (count !== undefined) packs.push(count);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  store.forgetAll();
  rmSync(root, { recursive: true, force: true });
});

/** A new repository served as `<name>.git`, and a working copy that pushes to it. */
async function newRepository(name: string) {
  const id = ++counter;
  await store.create('default', id, 'main');
  const repo = store.open('default', id);
  served.set(name, repo);
  const work = join(root, `work-${id}`);
  await git(['init', '--quiet', '--initial-branch=main', work]);
  return { repo, gitdir: repo.gitdir, work, url: `${base}/${name}.git` };
}

/** Files written (a nested one too), committed, and pushed to the served repository; the commit. */
async function commit(work: string, gitdir: string, files: Record<string, string>, message: string, branch = 'main'): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(work, path, '..'), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  await git(['add', '--all'], work);
  await git(['commit', '--quiet', '--allow-empty', '-m', message], work);
  await git(['push', '--quiet', gitdir, `HEAD:refs/heads/${branch}`], work);
  return git(['rev-parse', 'HEAD'], work);
}

/** A repository with a little history: two branches, a merge, an annotated and a lightweight tag, a tag of a tag. */
let template: Promise<string> | undefined;
function historyTemplate(): Promise<string> {
  return (template ??= (async () => {
    const gitdir = join(root, 'template.git');
    const work = join(root, 'template-work');
    await git(['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
    await git(['init', '--quiet', '--initial-branch=main', work]);
    for (let index = 0; index < 6; index++) {
      const files = { 'README.md': `# Project ${index}\n`, [`src/module-${index % 3}/file.ts`]: `export const n = ${index};\n` };
      await commit(work, gitdir, files, `commit ${index}`);
    }
    await git(['checkout', '--quiet', '-b', 'topic'], work);
    await commit(work, gitdir, { 'docs/guide.md': 'a guide\n'.repeat(50) }, 'topic work', 'topic');
    await git(['checkout', '--quiet', 'main'], work);
    await commit(work, gitdir, { 'src/module-0/file.ts': 'changed on main\n' }, 'main work');
    await git(['merge', '--quiet', '--no-edit', 'topic'], work);
    await git(['tag', '-a', '-m', 'version one', 'v1', 'HEAD~2'], work);
    await git(['tag', 'light', 'HEAD~1'], work);
    await git(['tag', '-a', '-m', 'a tag of a tag', 'v1-signed', 'v1'], work);
    await git(['push', '--quiet', gitdir, 'main', '--tags'], work);
    return gitdir;
  })());
}

/** A served repository with the template's history (loose objects), and a working copy of it that pushes to it. */
async function historyRepository(name: string) {
  const made = await newRepository(name);
  const from = await historyTemplate();
  rmSync(made.gitdir, { recursive: true });
  cpSync(from, made.gitdir, { recursive: true });
  rmSync(made.work, { recursive: true });
  await git(['clone', '--quiet', made.gitdir, made.work]);
  return made;
}

/** A clone's shallow commits, sorted; empty for a whole clone. */
function shallowOf(clone: string): string {
  try {
    return readFileSync(join(clone, '.git', 'shallow'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .sort()
      .join(' ');
  } catch {
    return '';
  }
}

/** Every reference of a repository with the object it holds. */
const referencesOf = (gitdir: string) => gitSync(['--git-dir', gitdir, 'for-each-ref', '--format=%(objectname) %(refname)']);

const versions = [2, 0] as const;

describe.runIf(hasGit)('upload-pack over smart HTTP', () => {
  it.each(versions)('mirrors a repository of loose objects, then one git gc packed, over protocol version %i', async (version) => {
    const { gitdir, url } = await historyRepository(`mirror-${version}`);
    for (const packed of [false, true]) {
      if (packed) {
        gitSync(['--git-dir', gitdir, 'gc', '--quiet']);
        // git gc leaves a bare repository a reachability bitmap: the objects are listed from it.
        expect(readdirSync(join(gitdir, 'objects', 'pack')).some((name) => name.endsWith('.bitmap'))).toBe(true);
      }
      const clone = join(root, `mirror-${version}-${packed}.git`);
      await git(['-c', `protocol.version=${version}`, 'clone', '--quiet', '--mirror', url, clone]);
      expect(referencesOf(clone)).toBe(referencesOf(gitdir));
      expect(fsck(clone)).toBe('0 ');
      expect(packs.at(-1)).toBe(Number(gitSync(['--git-dir', gitdir, 'rev-list', '--objects', '--all', '--count'])));
    }
  });

  it.each([2, 1, 0])('clones with a checkout, then fetches only what is new, over protocol version %i', async (version) => {
    const { gitdir, work, url } = await historyRepository(`fetch-${version}`);
    gitSync(['--git-dir', gitdir, 'gc', '--quiet']);
    const clone = join(root, `fetch-clone-${version}`);
    await git(['-c', `protocol.version=${version}`, 'clone', '--quiet', url, clone]);
    expect(gitSync(['rev-parse', 'HEAD'], clone)).toBe(gitSync(['--git-dir', gitdir, 'rev-parse', 'main']));
    expect(gitSync(['symbolic-ref', 'HEAD'], clone)).toBe('refs/heads/main');
    const before = gitSync(['--git-dir', gitdir, 'rev-parse', 'main']);

    // New commits, loose beside the pack, and an annotated tag on the newest: the tag follows the commit (include-tag).
    await commit(work, gitdir, { 'src/module-1/file.ts': 'changed again\n', 'new/deep/file.txt': 'new\n' }, 'new one');
    const after = await commit(work, gitdir, { 'README.md': '# Renamed\n' }, 'new two');
    await git(['tag', '-a', '-m', 'version two', 'v2', after], work);
    await git(['push', '--quiet', gitdir, 'v2'], work);
    await git(['-c', `protocol.version=${version}`, 'fetch', '--quiet', 'origin'], clone);
    expect(gitSync(['rev-parse', 'origin/main'], clone)).toBe(after);
    expect(gitSync(['rev-parse', 'v2'], clone)).toBe(gitSync(['--git-dir', gitdir, 'rev-parse', 'v2']));
    expect(fsck(join(clone, '.git'))).toBe('0 ');
    // The commits, trees and blobs the clone lacked, and the tag: nothing it had.
    const lacked = Number(gitSync(['--git-dir', gitdir, 'rev-list', '--objects', '--count', 'v2', `^${before}`]));
    expect(packs.at(-1)).toBe(lacked);
  });

  it.each(versions)('makes shallow clones, deepens and unshallows them as git does, over protocol version %i', async (version) => {
    const { gitdir, url } = await historyRepository(`shallow-${version}`);
    // The same requests of git's own upload-pack (over a pipe) are the measure.
    const ours = join(root, `shallow-clone-${version}`);
    const native = join(root, `shallow-native-${version}`);
    const both = async (args: string[], clone = false) => {
      await git(['-c', `protocol.version=${version}`, ...args, ...(clone ? [url, ours] : [])], clone ? undefined : ours);
      await git(['-c', `protocol.version=${version}`, ...args, ...(clone ? [`file://${gitdir}`, native] : [])], clone ? undefined : native);
      const state = (clone: string) => [gitSync(['rev-list', '--count', '--all'], clone), shallowOf(clone)];
      expect(state(ours)).toEqual(state(native));
      expect(fsck(join(ours, '.git'))).toBe('0 ');
    };
    await both(['clone', '--quiet', '--depth', '1', '--no-single-branch'], true);
    expect(shallowOf(ours)).toContain(gitSync(['--git-dir', gitdir, 'rev-parse', 'main']));
    // Fewer objects than the whole history.
    expect(packs.at(-1)).toBeLessThan(Number(gitSync(['--git-dir', gitdir, 'rev-list', '--objects', '--all', '--count'])));
    await both(['fetch', '--quiet', '--deepen', '1']);
    await both(['fetch', '--quiet', '--depth', '2']);
    await both(['fetch', '--quiet', '--unshallow']);
    expect(shallowOf(ours)).toBe('');
  });

  it.each(versions)('cuts a shallow clone by date and by reference as git does, over protocol version %i', async (version) => {
    const { gitdir, work, url } = await newRepository(`since-${version}`);
    // A commit a day: the dates the cut is made by.
    for (let index = 0; index < 5; index++) {
      await execFileAsync('git', ['commit', '--quiet', '--allow-empty', '-m', `day ${index}`], {
        cwd: work,
        env: { ...env, GIT_COMMITTER_DATE: `${1_700_000_000 + index * 86_400} +0000` },
      });
    }
    await git(['tag', 'old', 'HEAD~2'], work);
    await git(['push', '--quiet', gitdir, 'main', 'old'], work);
    for (const [option, expected] of [
      [`--shallow-since=${1_700_000_000 + 2 * 86_400}`, '3'],
      ['--shallow-exclude=old', '2'],
    ]) {
      const ours = join(root, `since-clone-${version}-${expected}`);
      const native = join(root, `since-native-${version}-${expected}`);
      await git(['-c', `protocol.version=${version}`, 'clone', '--quiet', option, url, ours]);
      await git(['-c', `protocol.version=${version}`, 'clone', '--quiet', option, `file://${gitdir}`, native]);
      expect(await git(['rev-list', '--count', 'HEAD'], ours)).toBe(expected);
      expect(shallowOf(ours)).toBe(shallowOf(native));
      expect(fsck(join(ours, '.git'))).toBe('0 ');
    }
  });

  it.each(versions)('clones an empty repository, its HEAD unborn, over protocol version %i', async (version) => {
    const { repo, url } = await newRepository(`empty-${version}`);
    await repo.setHeadBranch('trunk');
    const clone = join(root, `empty-clone-${version}`);
    const output = await execFileAsync('git', ['-c', `protocol.version=${version}`, 'clone', url, clone], { env });
    expect(output.stderr).toContain('cloned an empty repository');
    if (version === 2) expect(gitSync(['symbolic-ref', 'HEAD'], clone)).toBe('refs/heads/trunk');
  });

  it('clones in full where a partial clone is asked for (filter is not offered)', async () => {
    const { gitdir, url } = await historyRepository('filter');
    const clone = join(root, 'filter-clone');
    const output = await execFileAsync('git', ['-c', 'protocol.version=2', 'clone', '--filter=blob:none', url, clone], { env });
    expect(output.stderr).toContain('filtering not recognized by server');
    expect(fsck(join(clone, '.git'))).toBe('0 ');
    expect(packs.at(-1)).toBe(Number(gitSync(['--git-dir', gitdir, 'rev-list', '--objects', '--count', '--all'])));
  });

  it.each(versions)('refuses a want that no reference reaches, over protocol version %i', async (version) => {
    const { gitdir, work, url } = await historyRepository(`unreachable-${version}`);
    // A commit pushed to a branch, then the branch deleted: the object stays, unreachable.
    const hidden = await commit(work, gitdir, { 'secret.txt': 'secret\n' }, 'secret', 'hidden');
    gitSync(['--git-dir', gitdir, 'update-ref', '-d', 'refs/heads/hidden']);
    const clone = join(root, `unreachable-clone-${version}`);
    await git(['-c', `protocol.version=${version}`, 'clone', '--quiet', url, clone]);
    expect(await gitFails(['-c', `protocol.version=${version}`, 'fetch', 'origin', hidden], clone)).toContain(`not our ref ${hidden}`);
    // A commit a reference reaches may be asked for by its ID.
    const reachable = gitSync(['--git-dir', gitdir, 'rev-parse', 'main~2']);
    await git(['-c', `protocol.version=${version}`, 'fetch', '--quiet', 'origin', reachable], clone);
  });

  it('answers malformed and unknown requests with an ERR packet', async () => {
    const { gitdir } = await historyRepository('malformed');
    const repo = served.get('malformed')!;
    const main = gitSync(['--git-dir', gitdir, 'rev-parse', 'main']);
    const ask = async (body: string, protocol: 0 | 2) => {
      const chunks: Buffer[] = [];
      for await (const chunk of uploadPack(repo, [Buffer.from(body)], protocol)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('latin1');
    };
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    expect(await ask('zzzz', 0)).toMatch(/^[0-9a-f]{4}ERR protocol error: not a packet line\n$/);
    expect(await ask('00ffwant', 0)).toContain('ERR protocol error: a packet is cut short');
    expect(await ask(`${pkt('hello\n')}0000`, 0)).toContain("ERR protocol error: expected to get object ID, not 'hello'");
    expect(await ask(`${pkt(`want ${'1'.repeat(40)} side-band-64k\n`)}0000${pkt('done\n')}`, 0)).toContain(
      `ERR upload-pack: not our ref ${'1'.repeat(40)}`,
    );
    expect(await ask(`${pkt(`want ${main}\n`)}0000${pkt('what\n')}`, 0)).toContain("ERR protocol error: expected SHA1 list, got 'what'");
    expect(await ask(`${pkt(`want ${main}\n`)}${pkt('deepen 0\n')}0000`, 0)).toContain('ERR invalid deepen: deepen 0');
    expect(await ask(`${pkt('command=push\n')}0000`, 2)).toContain("ERR invalid command 'push'");
    expect(await ask(`${pkt('command=ls-refs\n')}${pkt('frobnicate\n')}0001${pkt('peel\n')}0000`, 2)).toContain(
      "ERR unknown capability 'frobnicate'",
    );
    expect(await ask(`${pkt('command=ls-refs\n')}0001${pkt('sideways\n')}0000`, 2)).toContain("ERR unexpected line: 'sideways'");
    expect(await ask(`${pkt('command=fetch\n')}0001${pkt('filter blob:none\n')}0000`, 2)).toContain(
      "ERR unexpected line: 'filter blob:none'",
    );
    expect(await ask(`${pkt('command=fetch\n')}0001${pkt(`want ${main}\n`)}`, 2)).toContain('ERR expected flush after fetch arguments');
    // ls-refs as git asks it: HEAD with its branch, tags peeled.
    const listed = await ask(`${pkt('command=ls-refs\n')}0001${pkt('symrefs\n')}${pkt('peel\n')}${pkt('ref-prefix HEAD\n')}0000`, 2);
    expect(listed).toBe(`${pkt(`${main} HEAD symref-target:refs/heads/main\n`)}0000`);
  });

  it('negotiates as git upload-pack does for a stateless client, in every mode, and ends a pack cleanly without side-band', async () => {
    const { gitdir, repo } = await historyRepository('negotiation');
    const rev = (name: string) => gitSync(['--git-dir', gitdir, 'rev-parse', name]);
    const [main, topic, old, older] = [rev('main'), rev('topic'), rev('main~3'), rev('main~5')];
    const unknown = 'f'.repeat(40);
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    /** The packets before the pack's: the answer to the negotiation. */
    const negotiation = async (body: Buffer) => {
      const lines: string[] = [];
      const reader = new PacketReader([body]);
      for (let packet = await reader.read(); packet !== undefined; packet = await reader.read()) {
        if (typeof packet === 'string') lines.push(packet);
        else if (packet[0] === 1 || packet[0] === 2 || packet.toString('latin1', 0, 4) === 'PACK') break;
        else lines.push(packet.toString('utf8').trim());
      }
      return lines;
    };
    const ours = async (body: string, protocol: 0 | 2) => {
      const chunks: Buffer[] = [];
      for await (const chunk of uploadPack(repo, [Buffer.from(body)], protocol)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    const native = (body: string, protocol: 0 | 2) =>
      spawnSync('git', ['upload-pack', '--stateless-rpc', gitdir], {
        input: body,
        env: { ...env, GIT_PROTOCOL: protocol === 2 ? 'version=2' : '' },
      }).stdout;
    const haves = (...oids: string[]) => oids.map((oid) => pkt(`have ${oid}\n`)).join('');
    const version0 = (capabilities: string, rest: string) => `${pkt(`want ${main} ${capabilities}\n`)}${pkt(`want ${topic}\n`)}0000${rest}`;
    const version2 = (rest: string) => `${pkt('command=fetch\n')}${pkt('object-format=sha1\n')}0001${pkt(`want ${main}\n`)}${rest}0000`;
    const requests: [string, 0 | 2][] = [
      [version0('multi_ack_detailed side-band-64k ofs-delta', `${haves(unknown, old, older)}0000`), 0],
      [version0('multi_ack_detailed side-band-64k', `${haves(unknown, old, older)}${pkt('done\n')}`), 0],
      [version0('multi_ack_detailed no-done side-band-64k', `${haves(old, older)}0000`), 0],
      [version0('multi_ack side-band-64k', `${haves(unknown, old)}0000`), 0],
      [version0('side-band-64k', `${haves(unknown, old, older)}0000`), 0],
      [version0('side-band-64k', `${haves(unknown)}${pkt('done\n')}`), 0],
      [`${pkt(`want ${main} side-band-64k\n`)}${pkt('deepen 2\n')}0000`, 0],
      [version2(`${pkt('thin-pack\n')}${haves(unknown, old)}`), 2],
      [version2(`${haves(unknown)}`), 2],
      [version2(`${pkt('wait-for-done\n')}${haves(old)}`), 2],
      [version2(`${pkt('deepen 1\n')}${haves(old)}${pkt('done\n')}`), 2],
    ];
    for (const [body, protocol] of requests) {
      expect([body, await negotiation(await ours(body, protocol))]).toEqual([body, await negotiation(native(body, protocol))]);
    }

    // Without side-band (and on the small one), the pack follows the negotiation bare (in packets of 1000 bytes).
    const target = join(root, 'negotiation-target.git');
    await git(['init', '--quiet', '--bare', target]);
    for (const capabilities of ['ofs-delta', 'side-band ofs-delta']) {
      const answer = await ours(version0(capabilities, pkt('done\n')), 0);
      expect(answer.toString('latin1', 0, 8)).toBe('0008NAK\n');
      let pack = answer.subarray(8);
      if (capabilities.includes('side-band')) {
        const data: Buffer[] = [];
        const reader = new PacketReader([pack]);
        for (let packet = await reader.read(); packet !== undefined; packet = await reader.read()) {
          if (typeof packet === 'string') continue;
          expect(packet.length + 4).toBeLessThanOrEqual(1000);
          if (packet[0] === 1) data.push(packet.subarray(1));
        }
        pack = Buffer.concat(data);
      }
      const indexed = spawnSync('git', ['--git-dir', target, 'index-pack', '--stdin', '--strict'], { input: pack, env });
      expect(indexed.status).toBe(0);
    }
  });

  it('stops and closes what it opened when its answer is no longer read', async () => {
    const { repo } = await historyRepository('abandoned');
    const main = gitSync(['--git-dir', repo.gitdir, 'rev-parse', 'main']);
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const body = Buffer.from(`${pkt(`want ${main} side-band-64k\n`)}0000${pkt('done\n')}`);
    // Aborted by the caller: the stream ends in an AbortError.
    const controller = new AbortController();
    const answer = uploadPack(repo, [body], 0, { signal: controller.signal });
    controller.abort();
    await expect(
      pipeline(answer, async (chunks: AsyncIterable<Buffer>) => {
        for await (const _ of chunks);
      }),
    ).rejects.toThrow(/abort/i);
    // Destroyed by its reader after the first piece: nothing goes on.
    const read = uploadPack(repo, [body], 0);
    for await (const _ of read) break;
    expect(read.destroyed).toBe(true);
  });
});

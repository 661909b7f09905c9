/** The server side of `git push` over smart HTTP (src/git/receive-pack.ts), driven by native git and by hand-made requests. */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitError } from '../src/git/errors.js';
import {
  advertiseReceivePack,
  type CommandResult,
  PushProtocolError,
  RECEIVE_PACK_ADVERTISEMENT,
  RECEIVE_PACK_RESULT,
  type ReceivedPush,
  receivePack,
  reportStatus,
} from '../src/git/receive-pack.js';
import type { Repository } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { fsck, hasGit } from './helpers.js';
import { GIT_ENV } from './git-http.js';

const ZERO_ID = '0'.repeat(40);
const root = mkdtempSync(join(tmpdir(), 'forgekit-receive-pack-'));
const store = new RepositoryStore({ default: root });
const env = { ...GIT_ENV, HOME: root };
/** git, run while the test server (in this process) answers: never a blocking call. */
const gitAsync = promisify(execFile);
/** git where no server is involved. */
const git = (cwd: string, args: string[], input?: string | Buffer): Buffer =>
  execFileSync('git', args, { cwd, env, input, maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'] });
const text = (cwd: string, args: string[]) => git(cwd, args).toString().trim();

/** What the test server does with a push: the pack bound, the references it refuses; the pushes it received. */
const policy = { maxPackBytes: 64 * 1024 * 1024, refuse: new Set<string>() };
const received: ReceivedPush[] = [];

let repo: Repository;
let gitdir: string;
let url: string;
let work: string;
let close: () => Promise<void>;

/** The commands applied as a forgekit service would: compare-and-swap, an atomic push all or nothing. */
async function apply(push: ReceivedPush): Promise<Map<string, CommandResult>> {
  const results = new Map<string, CommandResult>();
  const live = push.commands.filter((command) => command.error === undefined);
  const refused = live.filter((command) => policy.refuse.has(command.ref));
  if (push.atomic && refused.length) {
    for (const command of live)
      results.set(command.ref, { ok: false, reason: refused.includes(command) ? 'refused by the test server' : 'atomic push failure' });
    return results;
  }
  for (const command of live) {
    if (refused.includes(command)) {
      results.set(command.ref, { ok: false, reason: 'refused by the test server' });
      continue;
    }
    try {
      await repo.updateReference(command.ref, command.old === ZERO_ID ? null : command.old, command.new === ZERO_ID ? null : command.new);
      results.set(command.ref, { ok: true });
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      results.set(command.ref, { ok: false, reason: error.message });
    }
  }
  return results;
}

async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { pathname, searchParams } = new URL(request.url!, 'http://localhost');
  if (request.method === 'GET' && pathname === '/repo.git/info/refs' && searchParams.get('service') === 'git-receive-pack') {
    response.writeHead(200, { 'content-type': RECEIVE_PACK_ADVERTISEMENT, 'cache-control': 'no-cache' });
    response.end(await advertiseReceivePack(repo));
    return;
  }
  if (request.method === 'POST' && pathname === '/repo.git/git-receive-pack') {
    const body = request.headers['content-encoding'] === 'gzip' ? request.pipe(createGunzip()) : request;
    let push: ReceivedPush;
    try {
      push = await receivePack(repo, body, { maxPackBytes: policy.maxPackBytes });
    } catch (error) {
      if (!(error instanceof PushProtocolError)) throw error;
      response.writeHead(400, { connection: 'close' }).end(error.message);
      return;
    }
    received.push(push);
    const results = await apply(push);
    response.writeHead(200, { 'content-type': RECEIVE_PACK_RESULT, 'cache-control': 'no-cache' });
    response.end(reportStatus(push, results, ['hello from the test server']));
    return;
  }
  response.writeHead(404).end();
}

beforeAll(async () => {
  if (!hasGit) return;
  await store.create('default', 1, 'main');
  repo = store.open('default', 1);
  gitdir = repo.gitdir;
  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      response.writeHead(500, { connection: 'close' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
  work = join(root, 'work');
  git(root, ['init', '--quiet', '--initial-branch=main', work]);
  git(work, ['remote', 'add', 'origin', url]);
});

afterAll(async () => {
  await close?.();
  store.forgetAll();
  rmSync(root, { recursive: true, force: true });
});

/** `git push` from the working copy: whether it succeeded, and what it said. */
async function push(...args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await gitAsync('git', ['push', '--porcelain', 'origin', ...args], { cwd: work, env });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Files written (null: removed) and committed in the working copy; the commit. */
function commit(files: Record<string, string | Buffer | null>, message: string): string {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) rmSync(join(work, path));
    else {
      mkdirSync(join(work, path, '..'), { recursive: true });
      writeFileSync(join(work, path), content);
    }
  }
  git(work, ['add', '--all']);
  git(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
  return text(work, ['rev-parse', 'HEAD']);
}

/** The bare repository's references, as git reads them. */
const serverRefs = (): Record<string, string> =>
  Object.fromEntries(
    text(gitdir, ['for-each-ref', '--format=%(refname) %(objectname)'])
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')),
  );

/** Every file under the repository's `objects/`: what a refused push must leave as it found. */
const objectFiles = () =>
  readdirSync(join(gitdir, 'objects'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
const packFiles = () => objectFiles().filter((file) => file.includes('/pack/'));
/** No quarantine left behind, and git finds the repository sound. */
function expectSound(): void {
  expect(readdirSync(join(gitdir, 'objects')).filter((name) => name.startsWith('tmp_'))).toEqual([]);
  expect(fsck(gitdir)).toBe('0 ');
}

/** A request made by hand: the commands (the first with the capabilities), a flush, then the pack if any. */
async function send(
  commands: string[],
  pack?: Buffer,
  capabilities = 'report-status agent=test',
): Promise<{ status: number; body: string }> {
  const line = (payload: string) => `${(Buffer.byteLength(payload) + 4).toString(16).padStart(4, '0')}${payload}`;
  const lines = commands.map((command, index) => line(index === 0 ? `${command}\0${capabilities}` : command));
  const body = Buffer.concat([Buffer.from(`${lines.join('')}0000`), pack ?? Buffer.alloc(0)]);
  const response = await fetch(`${url}/git-receive-pack`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-git-receive-pack-request' },
    body,
  });
  return { status: response.status, body: await response.text() };
}

/** A pack of the objects `revisions` (`git rev-list` arguments, on stdin) name in the working copy. */
const packOf = (revisions: string[], options: string[] = []) =>
  git(work, ['pack-objects', '--revs', '--stdout', ...options], `${revisions.join('\n')}\n`);

describe.runIf(hasGit)('receive-pack over smart HTTP', () => {
  it('advertises an empty repository with capabilities^{} and the zero ID, and no-thin', async () => {
    const advertisement = (await advertiseReceivePack(repo)).toString('latin1');
    expect(advertisement.startsWith('001f# service=git-receive-pack\n0000')).toBe(true);
    expect(advertisement.endsWith('0000')).toBe(true);
    const first = advertisement.slice(35 + 4);
    expect(first.startsWith(`${ZERO_ID} capabilities^{}\0`)).toBe(true);
    for (const capability of ['report-status', 'delete-refs', 'side-band-64k', 'atomic', 'ofs-delta', 'push-options', 'no-thin'])
      expect(first.split('\0')[1].split(/[ \n]/)).toContain(capability);
  });

  it('takes a first push of a new branch: the pack in place, the branch moved by the caller, git finds it sound', async () => {
    commit({ 'README.md': '# hello\n', 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n' }, 'first');
    const main = commit({ 'src/a.txt': 'a, changed\n' }, 'second');
    const pushed = await push('main');
    expect(pushed.output).toContain('hello from the test server');
    expect(pushed.ok).toBe(true);
    expect(serverRefs()).toEqual({ 'refs/heads/main': main });
    expect(packFiles()).toHaveLength(2);
    expect(received.at(-1)!.capabilities).toContain('report-status');
    expectSound();
    // The advertisement now lists the branch, with the capabilities on it.
    expect((await advertiseReceivePack(repo)).toString('latin1')).toContain(`${main} refs/heads/main\0report-status`);
  });

  it('takes tags, and a branch at a commit the repository has (an empty pack, not kept)', async () => {
    const packs = packFiles();
    git(work, ['tag', 'light']);
    git(work, ['tag', '-a', 'v1', '-m', 'version 1']);
    const pushed = await push('light', 'v1', 'main:refs/heads/copy');
    expect(pushed.ok).toBe(true);
    const main = text(work, ['rev-parse', 'main']);
    expect(serverRefs()).toEqual({
      'refs/heads/main': main,
      'refs/heads/copy': main,
      'refs/tags/light': main,
      'refs/tags/v1': text(work, ['rev-parse', 'v1']),
    });
    // The tag object came in a pack of its own; the branch needed nothing.
    expect(packFiles().length).toBe(packs.length + 2);
    expectSound();
    const hidden = (await advertiseReceivePack(repo, { hidden: (name) => name.startsWith('refs/tags/') })).toString('latin1');
    expect(hidden).toContain(' refs/heads/copy');
    expect(hidden).not.toContain('refs/tags/');
  });

  it('takes a fast-forward, a force push and a delete (which sends no pack)', async () => {
    const ahead = commit({ 'src/c.txt': 'c\n' }, 'third');
    expect((await push('main')).ok).toBe(true);
    expect(serverRefs()['refs/heads/main']).toBe(ahead);
    git(work, ['reset', '--quiet', '--hard', 'HEAD~1']);
    const rewritten = commit({ 'src/c.txt': 'c, rewritten\n' }, 'third, rewritten');
    expect((await push('main')).ok).toBe(false);
    expect(serverRefs()['refs/heads/main']).toBe(ahead);
    expect((await push('--force', 'main')).ok).toBe(true);
    expect(serverRefs()['refs/heads/main']).toBe(rewritten);
    expectSound();

    const packs = packFiles();
    const deleted = await push(':copy', ':refs/tags/light');
    expect(deleted.ok).toBe(true);
    expect(serverRefs()['refs/heads/copy']).toBeUndefined();
    expect(serverRefs()['refs/tags/light']).toBeUndefined();
    expect(received.at(-1)!.commands.map(({ new: next }) => next)).toEqual([ZERO_ID, ZERO_ID]);
    expect(packFiles()).toEqual(packs);
    expectSound();
  });

  it('passes push options on', async () => {
    commit({ 'options.txt': 'o\n' }, 'with options');
    expect((await push('-o', 'ci.skip', '-o', 'merge_request.create', 'main')).ok).toBe(true);
    expect(received.at(-1)!.pushOptions).toEqual(['ci.skip', 'merge_request.create']);
  });

  it('reports what the caller refuses; an atomic push with one refusal moves nothing', async () => {
    const before = serverRefs();
    const next = commit({ 'atomic.txt': 'x\n' }, 'atomic');
    policy.refuse = new Set(['refs/heads/refused']);
    try {
      const atomic = await push('--atomic', 'main', 'main:refs/heads/refused', 'main:refs/heads/other');
      expect(atomic.ok).toBe(false);
      expect(atomic.output).toContain('refused by the test server');
      expect(atomic.output).toContain('atomic push failure');
      expect(received.at(-1)!.atomic).toBe(true);
      expect(serverRefs()).toEqual(before);
      expectSound();

      const partial = await push('main', 'main:refs/heads/refused');
      expect(partial.ok).toBe(false);
      expect(serverRefs()).toEqual({ ...before, 'refs/heads/main': next });
      expectSound();
    } finally {
      policy.refuse = new Set();
    }
  });

  it('takes a large file (a chunked request after git probes the server), and refuses a pack over the bound', async () => {
    const large = commit({ 'large.bin': randomBytes(4 * 1024 * 1024) }, 'large');
    const pushes = received.length;
    const pushed = await push('main');
    expect(pushed.ok).toBe(true);
    // git's probe (a body of a flush alone) came first.
    expect(received.slice(pushes).map(({ commands }) => commands.length)).toEqual([0, 1]);
    expect(serverRefs()['refs/heads/main']).toBe(large);
    expectSound();

    const files = objectFiles();
    commit({ 'larger.bin': randomBytes(2 * 1024 * 1024) }, 'too large');
    policy.maxPackBytes = 1024 * 1024;
    try {
      const refused = await push('main');
      expect(refused.ok).toBe(false);
      expect(refused.output).toContain('pack exceeds maximum allowed size');
      expect(received.at(-1)!.unpackError).toBe('pack exceeds maximum allowed size');
    } finally {
      policy.maxPackBytes = 64 * 1024 * 1024;
    }
    expect(serverRefs()['refs/heads/main']).toBe(large);
    expect(objectFiles()).toEqual(files);
    expectSound();
  });

  it('refuses a corrupt or truncated pack with `unpack <error>`, leaving no object behind', async () => {
    const base = serverRefs()['refs/heads/main'];
    const next = text(work, ['rev-parse', 'main']);
    const pack = packOf([next, `^${base}`]);
    const files = objectFiles();
    const refs = serverRefs();
    const corrupt = Buffer.from(pack);
    corrupt[Math.floor(corrupt.length / 2)] ^= 0xff;
    for (const body of [corrupt, pack.subarray(0, pack.length - 100), pack.subarray(0, 12), Buffer.alloc(0)]) {
      const answer = await send([`${ZERO_ID} ${next} refs/heads/corrupt`], body);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatch(/^[0-9a-f]{4}unpack (?!ok)/);
      expect(answer.body).toContain('ng refs/heads/corrupt unpacker error\n');
      expect(objectFiles()).toEqual(files);
      expect(serverRefs()).toEqual(refs);
    }
    expectSound();
    // The same pack whole is taken.
    const answer = await send([`${ZERO_ID} ${next} refs/heads/whole`], pack);
    expect(answer.body).toContain('unpack ok\n');
    expect(answer.body).toContain('ok refs/heads/whole\n');
    expect(serverRefs()['refs/heads/whole']).toBe(next);
    expectSound();
  });

  it('refuses objects missing, a thin pack, a blob on a branch and a name git refuses, per command', async () => {
    const base = serverRefs()['refs/heads/main'];
    const lines = Array.from({ length: 300 }, (_, index) => `line ${index} of a file that changes little\n`);
    commit({ 'delta.txt': lines.join('') }, 'a file');
    expect((await push('main')).ok).toBe(true);
    lines[150] = 'changed\n';
    const next = commit({ 'delta.txt': lines.join('') }, 'a line changed');
    const files = objectFiles();
    const refs = serverRefs();

    // The commit alone: its tree is neither in the pack nor the repository.
    const alone = git(work, ['pack-objects', '--stdout'], `${next}\n`);
    let answer = await send([`${ZERO_ID} ${next} refs/heads/partial`], alone);
    expect(answer.body).toContain('unpack ok\n');
    expect(answer.body).toContain('ng refs/heads/partial missing necessary objects\n');

    // Deltas against the repository's objects, which git sends unless told `no-thin`.
    const thin = packOf([next, `^${text(work, ['rev-parse', 'main~1'])}`], ['--thin']);
    answer = await send([`${ZERO_ID} ${next} refs/heads/thin`], thin);
    expect(answer.body).toMatch(/unpack the pack is thin/);
    expect(answer.body).toContain('ng refs/heads/thin unpacker error\n');

    const blob = text(work, ['rev-parse', 'main:delta.txt']);
    answer = await send([`${ZERO_ID} ${blob} refs/heads/blob`], packOf([next, `^${base}`]));
    expect(answer.body).toContain('ng refs/heads/blob non-commit object on a branch\n');

    answer = await send([`${ZERO_ID} ${next} refs/heads/a..b`, `${ZERO_ID} ${next} HEAD`], packOf([next, `^${base}`]));
    expect(answer.body).toContain('ng refs/heads/a..b funny refname\n');
    expect(answer.body).toContain('ng HEAD funny refname\n');
    expect(objectFiles()).toEqual(files);
    expect(serverRefs()).toEqual(refs);

    // In an atomic push, one command ruled out rules out the rest; in side-band-64k, as git asked for it.
    answer = await send(
      [`${ZERO_ID} ${next} refs/heads/fine`, `${ZERO_ID} ${next} refs/heads/a..b`],
      packOf([next, `^${base}`]),
      'report-status side-band-64k atomic',
    );
    expect(answer.body).toContain('ng refs/heads/fine atomic push failure\n');
    expect(answer.body).toContain('\x02hello from the test server\n');
    expect(objectFiles()).toEqual(files);
    expect(serverRefs()).toEqual(refs);
    expectSound();
  });

  it('answers what is not the protocol with an error, and git’s probe with nothing', async () => {
    expect((await send(['not a command'])).status).toBe(400);
    const next = text(work, ['rev-parse', 'main']);
    expect((await send([`${ZERO_ID} ${next} refs/heads/x`, `${ZERO_ID} ${next} refs/heads/x`])).status).toBe(400);
    const probe = await fetch(`${url}/git-receive-pack`, { method: 'POST', body: '0000' });
    expect(probe.status).toBe(200);
    expect(await probe.text()).toBe('');
    expectSound();
  });
});

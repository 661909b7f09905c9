/**
 * Heavy requests must not stall the server (docs/repositories.md, "Archives and raw files"): archives of a
 * large repository and a burst of forks at once, against a listening server (real sockets, so latency is real),
 * while GET /version is asked again and again. Archives are downloaded by curl, in processes of their own, so that
 * the test's own reading costs the server's event loop nothing. bench/archives.ts runs the same with 70 MB.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArchiveRepository } from '../bench/lib/archive-repository.js';
import { pollVersion } from '../bench/lib/poll-version.js';
import { ARCHIVE_QUEUE, ARCHIVE_WORKERS, archivesUnderWay } from '../src/git/archive-pool.js';
import { RepositoryStore } from '../src/git/store.js';
import { hasGit, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** The large repository's size: smaller than the benchmark's 70 MB, to keep the suite fast. */
const REPOSITORY_BYTES = 24 * 1024 * 1024;
const HEAVY_ARCHIVES = ['zip', 'tar.gz', 'zip', 'tar.gz', 'tar'] as const;
const FORKS = 50;

let t: TestHosting;
let server: Server;
let origin: string;
const storage = mkdtempSync(join(tmpdir(), 'forgekit-stall-test-'));
const downloads = mkdtempSync(join(tmpdir(), 'forgekit-stall-downloads-'));
let big: { id: number; path: string; commit: string };
let small: number;

beforeAll(async () => {
  t = await startHosting({ storage });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (!hasGit) return;
  const project = await t.hosting.projects.create({ name: 'Big', visibility: 'public' });
  const commit = await writeArchiveRepository(join(storage, RepositoryStore.relativePath(project.id)), REPOSITORY_BYTES);
  big = { id: project.id, path: project.path, commit };
  small = (await t.hosting.projects.create({ name: 'Small', visibility: 'public' })).id;
  await t.hosting.commits.create(small, {
    branch: 'master',
    commit_message: 'Initial',
    actions: [{ action: 'create', file_path: 'README.md', content: '# Small\n' }],
  });
}, 120_000);
afterAll(async () => {
  server?.close();
  await t?.close();
  rmSync(storage, { recursive: true, force: true });
  rmSync(downloads, { recursive: true, force: true });
});

const api = (path: string) => `${origin}/api/v4${path}`;

/**
 * curl, one process for all the transfers (run at once), each answer written to its file: each one's status
 * and Retry-After header. One process: starting one per transfer would cost the event loop more than the server.
 */
function curl(transfers: { url: string; file: string }[]): Promise<{ status: number; retryAfter: string }[]> {
  return new Promise((resolve, reject) => {
    const args = [
      '-sS',
      '--no-progress-meter',
      '--parallel',
      '--parallel-immediate',
      '--parallel-max',
      '100',
      '-w',
      '%{http_code} %header{retry-after}\\n',
    ];
    for (const { url, file } of transfers) args.push('-o', file, url);
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    // Answers come in the order they finish, not the order asked.
    child.on('close', () =>
      resolve(
        out
          .trim()
          .split('\n')
          .map((line) => ({ status: Number(line.split(' ')[0]), retryAfter: line.split(' ')[1] ?? '' })),
      ),
    );
  });
}

/** Resolves once `condition` holds (looked at every 10 ms). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** POST /projects/:id/fork of the large project, as `path`. */
async function fork(path: string): Promise<{ status: number; body: { id: number } }> {
  const res = await fetch(api(`/projects/${big.id}/fork`), {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': ROOT_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: path, path }),
  });
  return { status: res.status, body: (await res.json()) as { id: number } };
}

/** The SHA-256 of a stream's bytes. */
async function digest(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What `git archive` writes for the same commit and prefix, by its SHA-256 (tar) or its entries (zip). */
function gitArchive(format: 'tar' | 'zip', prefix: string) {
  const child = spawn('git', [
    '--git-dir',
    join(storage, RepositoryStore.relativePath(big.id)),
    'archive',
    `--format=${format}`,
    `--prefix=${prefix}/`,
    big.commit,
  ]);
  return child.stdout;
}

const entriesOf = (zip: Uint8Array) =>
  Object.entries(unzipSync(zip)).map(([name, content]) => `${name} ${createHash('sha256').update(content).digest('hex')}`);

describe.runIf(hasGit && hasCurl)('heavy requests and the event loop', () => {
  it('serves five archives of a large repository and fifty forks at once, /version answering throughout, ' +
    'every archive as git makes it, and 429 with Retry-After past the queue', async () => {
    const archiveUrl = (id: number, format: string) => api(`/projects/${id}/repository/archive.${format}?sha=master`);
    // /version asked all along: any answer but 200 fails the run (pollVersion). How fast it answers, and how much
    // memory the load takes, are bench/archives.ts's to report (the same load, 70 MB): bounds on them fail on a busy
    // machine.
    const poller = pollVersion(origin, ROOT_TOKEN);

    const heavy = curl(
      HEAVY_ARCHIVES.map((format, index) => ({ url: archiveUrl(big.id, format), file: join(downloads, `big-${index}.${format}`) })),
    );
    // Every heavy archive is running or waiting before the burst comes: it fills what waits, and three are refused.
    await until(() => archivesUnderWay().running + archivesUnderWay().waiting === HEAVY_ARCHIVES.length);
    const admitted = ARCHIVE_WORKERS + ARCHIVE_QUEUE - HEAVY_ARCHIVES.length;
    const burst = curl(
      Array.from({ length: admitted + 3 }, (_, index) => ({ url: archiveUrl(small, 'tar.gz'), file: join(downloads, `small-${index}`) })),
    );
    // The forks once the burst is in: their transactions would hold back the burst's requests on PGlite.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const forks = Promise.all(Array.from({ length: FORKS }, (_, index) => fork(`fork-${index}`)));
    const [heavyResults, burstResults, forkResults] = await Promise.all([heavy, burst, forks]);
    await t.hosting.backgroundJobs.drain();
    await poller.stop();
    expect(heavyResults.map((result) => result.status)).toEqual(HEAVY_ARCHIVES.map(() => 200));
    expect(forkResults.map((result) => result.status)).toEqual(forkResults.map(() => 201));
    const refused = burstResults.filter((result) => result.status !== 200);
    expect(refused).toEqual([0, 1, 2].map(() => ({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/) })));
    const bodies = Array.from({ length: admitted + 3 }, (_, index) => readFileSync(join(downloads, `small-${index}`)));
    expect(bodies.filter((body) => body[0] === 0x7b).map((body) => JSON.parse(body.toString()))).toEqual(
      [0, 1, 2].map(() => ({ message: '429 Too Many Requests' })),
    );
    // Each archive as git archive makes it: the tar byte for byte, the tar.gz's tar too, the zip entry for entry.
    const prefix = `${big.path}-master-${big.commit}`;
    const tarDigest = await digest(gitArchive('tar', prefix));
    const zipEntries = entriesOf(Buffer.concat(await gitArchive('zip', prefix).toArray()));
    for (const [index, format] of HEAVY_ARCHIVES.entries()) {
      const file = join(downloads, `big-${index}.${format}`);
      if (format === 'zip') expect(entriesOf(readFileSync(file))).toEqual(zipEntries);
      else
        expect([format, await digest(format === 'tar' ? createReadStream(file) : createReadStream(file).pipe(createGunzip()))]).toEqual([
          format,
          tarDigest,
        ]);
    }
    // Every fork has the whole repository (read by git: forgekit's reads would keep each fork's pack).
    const git = (id: number, ...args: string[]) =>
      execFileSync('git', ['--git-dir', join(storage, RepositoryStore.relativePath(id)), ...args], { encoding: 'utf8' }).trim();
    for (const { body } of forkResults) {
      expect([(await t.hosting.projects.get(body.id)).import_status, git(body.id, 'rev-parse', 'master')]).toEqual([
        'finished',
        big.commit,
      ]);
    }
    expect(git(forkResults[FORKS - 1].body.id, 'fsck', '--no-progress')).toBe('');
  }, 120_000);

  it('sends an archive as it is made, and stops making it when its client goes away', async () => {
    // Every worker busy with a zip that takes seconds to make; each client reads its first bytes and goes away.
    const stillMaking = await Promise.all(
      Array.from({ length: ARCHIVE_WORKERS }, async () => {
        const controller = new AbortController();
        const res = await fetch(api(`/projects/${big.id}/repository/archive.zip?sha=master`), { signal: controller.signal });
        const reader = res.body!.getReader();
        await reader.read();
        // Streamed: the first bytes came while the zip was still being made.
        const making = archivesUnderWay().running > 0;
        controller.abort();
        await reader.closed.catch(() => {});
        return making;
      }),
    );
    expect(stillMaking).toEqual(stillMaking.map(() => true));
    // Idle again: every worker stopped at its next piece rather than make a zip nobody reads (the test's own
    // timeout is the bound; how soon is bench/archives.ts's to report).
    await until(() => archivesUnderWay().running === 0 && archivesUnderWay().waiting === 0);
    const res = await fetch(api(`/projects/${small}/repository/archive.zip`));
    expect([res.status, (await res.arrayBuffer()).byteLength > 0]).toEqual([200, true]);
  }, 60_000);
});

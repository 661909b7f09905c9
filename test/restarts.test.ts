/**
 * `forgekit serve` stopped (SIGTERM) and killed (kill -9), then started again with the same flags: everything it
 * acknowledged is there, repositories included, and `git fsck` finds nothing wrong; an embedder's durable event consumer
 * (test/fixtures/event-consumer.mjs) killed likewise sees every event once started again, in order, and so does a webhook's
 * receiver (every acknowledged write's delivery, in order, a repeat only of the one in flight at the kill). On the embedded
 * database in the PGlite suite, on PostgreSQL in the PostgreSQL suite (repositories under the data directory in both).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { eventually, freshDatabase, fsck, hasGit, migratedDataDir } from './helpers.js';
import { listeningOn, Processes, runGathering, type Running } from './processes.js';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const eventConsumer = fileURLToPath(new URL('./fixtures/event-consumer.mjs', import.meta.url));
const postgres = process.env.FORGEKIT_TEST_DATABASE_URL;
const TOKEN = 'restarts-root-token';
const processes = new Processes();
const directories: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(() => processes.stopAll());
afterAll(async () => {
  processes.stopAll();
  for (const cleanup of cleanups) await cleanup();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/**
 * The flags of one instance: a data directory (the embedded database, migrated already, and the repositories), and
 * on the PostgreSQL suite a database of its own.
 */
async function instanceFlags(): Promise<{ flags: string[]; storage: string; dataDir: string; databaseUrl?: string }> {
  const dataDir = migratedDataDir();
  directories.push(dataDir);
  if (!postgres) return { flags: ['--data-dir', dataDir], storage: join(dataDir, 'repositories'), dataDir };
  const database = await freshDatabase();
  cleanups.push(database.drop);
  return {
    flags: ['--database-url', database.url, '--data-dir', dataDir],
    storage: join(dataDir, 'repositories'),
    dataDir,
    databaseUrl: database.url,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the response body is any endpoint's JSON, as supertest's is
type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

async function serve(flags: string[]): Promise<{ server: Running; api: Api }> {
  const server = runGathering(processes, process.execPath, [cli, 'serve', '--port', '0', ...flags], {
    env: { ...process.env, DATABASE_URL: '', FORGEKIT_ROOT_TOKEN: TOKEN },
  });
  return { server, api: apiAt(await listeningOn(server, 60_000)) };
}

/** Calls of the API at `url`, as root. */
function apiAt(url: string): Api {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
  };
}

const gitLog = (gitdir: string, ref: string) =>
  spawnSync('git', ['--git-dir', gitdir, 'rev-list', ref], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

describe.runIf(hasGit)('forgekit serve, stopped and started again', { timeout: 240_000 }, () => {
  it('keeps every commit, tag, release and issue it acknowledged across SIGTERM', async () => {
    const { flags, storage } = await instanceFlags();
    const first = await serve(flags);
    const project = await first.api('POST', '/projects', { name: 'kept' });
    expect(project.status).toBe(201);
    const id = project.body.id;
    const file = await first.api('POST', `/projects/${id}/repository/files/README.md`, {
      branch: 'master',
      content: '# Kept\n',
      commit_message: 'Start',
    });
    expect(file.status).toBe(201);
    const tag = await first.api('POST', `/projects/${id}/repository/tags`, {
      tag_name: 'v1',
      ref: 'master',
      message: 'First',
      release_description: 'Notes',
    });
    expect(tag.status).toBe(201);
    const release = await first.api('POST', `/projects/${id}/releases`, {
      tag_name: 'v2',
      ref: 'master',
      name: 'Two',
      description: 'More notes',
    });
    expect(release.status).toBe(201);
    const issue = await first.api('POST', `/projects/${id}/issues`, { title: 'Kept issue', labels: 'bug' });
    expect(issue.status).toBe(201);
    expect((await first.api('POST', `/projects/${id}/issues/1/notes`, { body: 'Kept note' })).status).toBe(201);
    // A merge request set to merge when its pipeline succeeds, which turns green after the restart.
    const feature = await first.api('POST', `/projects/${id}/repository/files/feature.txt`, {
      branch: 'feature',
      start_branch: 'master',
      content: 'f',
      commit_message: 'Feature',
    });
    expect(feature.status).toBe(201);
    const request = await first.api('POST', `/projects/${id}/merge_requests`, {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'Automatic',
    });
    expect(request.status).toBe(201);
    expect((await first.api('POST', `/projects/${id}/statuses/${request.body.sha}`, { state: 'running', name: 'ci' })).status).toBe(201);
    const automatic = await first.api('PUT', `/projects/${id}/merge_requests/1/merge`, { merge_when_pipeline_succeeds: true });
    expect([automatic.status, automatic.body.merge_when_pipeline_succeeds]).toEqual([200, true]);
    first.server.child.kill('SIGTERM');
    expect(await first.server.exited).toBe(0);

    const second = await serve(flags);
    expect(second.server.output()).not.toMatch(/repositor(y|ies) that the storages lack/);
    const raw = await second.api('GET', `/projects/${id}/repository/files/README.md/raw?ref=master`);
    expect([raw.status, raw.body]).toEqual([200, '# Kept\n']);
    const commits = await second.api('GET', `/projects/${id}/repository/commits`);
    expect(commits.body.map((commit: { title: string }) => commit.title)).toEqual(['Start']);
    expect((await second.api('GET', `/projects/${id}`)).body.default_branch).toBe('master');
    const tags = await second.api('GET', `/projects/${id}/repository/tags`);
    expect(
      tags.body.map((shown: { name: string; release: { description: string } | null }) => [shown.name, shown.release?.description]),
    ).toEqual([
      ['v2', 'More notes'],
      ['v1', 'Notes'],
    ]);
    const kept = await second.api('GET', `/projects/${id}/issues/1`);
    expect([kept.body.title, kept.body.labels, kept.body.user_notes_count]).toEqual(['Kept issue', ['bug'], 1]);
    // The next issue takes the next iid: the counter was kept too.
    expect((await second.api('POST', `/projects/${id}/issues`, { title: 'Next issue' })).body.iid).toBe(2);
    // The pipeline turns green: the request merges by itself, in a job of the restarted server.
    expect((await second.api('POST', `/projects/${id}/statuses/${request.body.sha}`, { state: 'success', name: 'ci' })).status).toBe(201);
    let merged = await second.api('GET', `/projects/${id}/merge_requests/1`);
    for (let tries = 0; merged.body.state !== 'merged' && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      merged = await second.api('GET', `/projects/${id}/merge_requests/1`);
    }
    expect([merged.body.state, merged.body.merge_commit_sha]).toEqual(['merged', expect.stringMatching(/^[0-9a-f]{40}$/)]);
    // The next write continues the history.
    const next = await second.api('POST', `/projects/${id}/repository/files/b.txt`, {
      branch: 'master',
      content: 'b',
      commit_message: 'Next',
    });
    expect(next.status).toBe(201);
    const gitdir = join(storage, RepositoryStore.relativePath(id));
    // The first commit, the feature's, the merge commit, the next.
    expect(gitLog(gitdir, 'master')).toHaveLength(4);
    expect(fsck(gitdir)).toBe('0 ');
    second.server.child.kill('SIGTERM');
    expect(await second.server.exited).toBe(0);
  });

  it('keeps what it acknowledged across kill -9 in the middle of writes, and the next write to each branch lands at once', async () => {
    const { flags, storage } = await instanceFlags();
    const acknowledged = new Map<number, { commits: Set<string>; tags: Set<string> }>();
    let locksLeft = 0;
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round += 1) {
      const { server, api } = await serve(flags);
      if (round === 0) {
        for (const name of ['one', 'two', 'three']) {
          const project = await api('POST', '/projects', { name });
          acknowledged.set(project.body.id, { commits: new Set(), tags: new Set() });
        }
      } else {
        // What every earlier round acknowledged is there, in the repository and through the API.
        for (const [id, kept] of acknowledged) {
          const gitdir = join(storage, RepositoryStore.relativePath(id));
          const history = new Set(gitLog(gitdir, 'master'));
          for (const commit of kept.commits) expect(history.has(commit), `round ${round}: commit ${commit} of project ${id}`).toBe(true);
          for (const tag of kept.tags)
            expect((await api('GET', `/projects/${id}/repository/tags/${tag}`)).status, `round ${round}: tag ${tag}`).toBe(200);
          expect(fsck(gitdir)).toBe('0 ');
          // At once: a lock file a crash left is taken over, not waited out.
          const started = Date.now();
          const next = await api('POST', `/projects/${id}/repository/files/after-${round}.txt`, {
            branch: 'master',
            content: `${round}`,
            commit_message: `After round ${round}`,
          });
          expect(next.status, JSON.stringify(next.body)).toBe(201);
          expect(Date.now() - started).toBeLessThan(5_000);
          kept.commits.add(next.body.id ?? (await api('GET', `/projects/${id}/repository/commits/master`)).body.id);
        }
      }
      if (round === ROUNDS - 1) break;
      // Writers on every project, until the kill: each answer received is acknowledged.
      let stopped = false;
      const writers = [...acknowledged].map(async ([id, kept]) => {
        for (let index = 0; !stopped; index += 1) {
          const result = await api('POST', `/projects/${id}/repository/commits`, {
            branch: 'master',
            commit_message: `Round ${round} write ${index}`,
            actions: [{ action: 'create', file_path: `r${round}/w${index}.txt`, content: `${index}` }],
          }).catch(() => null);
          if (result?.status === 201) kept.commits.add(result.body.id);
          if (index % 4 === 3 && !stopped) {
            const tag = await api('POST', `/projects/${id}/repository/tags`, { tag_name: `r${round}-t${index}`, ref: 'master' }).catch(
              () => null,
            );
            if (tag?.status === 201) kept.tags.add(`r${round}-t${index}`);
          }
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 400 + Math.random() * 600));
      server.child.kill('SIGKILL');
      stopped = true;
      await server.exited;
      await Promise.all(writers);
      for (const id of acknowledged.keys()) {
        const heads = join(storage, RepositoryStore.relativePath(id), 'refs', 'heads');
        locksLeft += readdirSync(heads).filter((name) => name.endsWith('.lock')).length;
      }
      // Should no kill have landed inside a reference update by the last round, one is left as a kill would leave it.
      if (round === ROUNDS - 2 && locksLeft === 0) {
        const [id] = acknowledged.keys();
        writeFileSync(join(storage, RepositoryStore.relativePath(id), 'refs', 'heads', 'master.lock'), '');
      }
    }
    for (const kept of acknowledged.values()) expect(kept.commits.size).toBeGreaterThan(ROUNDS - 1);
    expect(existsSync(storage)).toBe(true);
  });
});

describe('a deferred event consumer, killed and started again', { timeout: 60_000 }, () => {
  /** test/fixtures/event-consumer.mjs on the instance's data, writing to `file`, started. */
  async function embed(instance: { dataDir: string; databaseUrl?: string }, file: string): Promise<{ server: Running; api: Api }> {
    const args = [eventConsumer, instance.dataDir, file, ...(instance.databaseUrl ? [instance.databaseUrl] : [])];
    const server = runGathering(processes, process.execPath, args, { env: { ...process.env, FORGEKIT_ROOT_TOKEN: TOKEN } });
    return { server, api: apiAt(await listeningOn(server, 60_000)) };
  }

  /** The event IDs the consumer wrote, in its order, and the issue IDs beside them. */
  const consumed = (file: string) =>
    (existsSync(file) ? readFileSync(file, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ').map(Number) as [number, number]);

  it('sees every event, in the order of the record, at least once: a repeat only re-delivered after kill -9', async () => {
    const instance = await instanceFlags();
    const file = join(instance.dataDir, 'consumed.txt');
    const first = await embed(instance, file);
    const project = await first.api('POST', '/projects', { name: 'consumed' });
    expect(project.status).toBe(201);
    const issues = `/projects/${project.body.id}/issues`;
    const acknowledged: number[] = [];
    // One client, one issue after the other; kill -9 while one of them is on its way, somewhere in the first 10 to 30.
    const killAt = 10 + Math.floor(Math.random() * 20);
    let killed = false;
    for (let index = 0; !killed; index += 1) {
      const created = first.api('POST', issues, { title: `Storm ${index}` });
      if (index === killAt)
        setTimeout(() => {
          first.server.child.kill('SIGKILL');
          killed = true;
        }, Math.random() * 30);
      const answer = await created.catch(() => null);
      // Each answer received is acknowledged.
      if (answer?.status === 201) acknowledged.push(answer.body.id);
    }
    await first.server.exited;
    const beforeKill = consumed(file).map(([id]) => id);
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAt);

    const second = await embed(instance, file);
    for (const title of ['After 1', 'After 2', 'After 3']) {
      const created = await second.api('POST', issues, { title });
      expect(created.status).toBe(201);
      acknowledged.push(created.body.id);
    }
    // The record's issue.opened events of the project, in its order (those made but not acknowledged before the kill too).
    const events = await second.api('GET', `/projects/${project.body.id}/events?action=created&target_type=issue&sort=asc&per_page=100`);
    expect([events.status, events.body.length < 100]).toEqual([200, true]);
    const recorded: number[] = events.body.map((event: { target_id: number }) => event.target_id);
    expect(recorded).toEqual(expect.arrayContaining(acknowledged));
    // Caught up: the consumer has handled every one of them.
    await eventually(async () => expect(new Set(consumed(file).map(([, issue]) => issue)).size).toBe(recorded.length), 15_000);

    const lines = consumed(file);
    const once = lines.filter(([id], index) => lines.findIndex(([other]) => other === id) === index);
    // Every event, in the order of the record: the issues as the record has them, each event ID above the one before.
    expect(once.map(([, issue]) => issue)).toEqual(recorded);
    for (let index = 1; index < once.length; index += 1) expect(once[index][0]).toBeGreaterThan(once[index - 1][0]);
    // Each process handed each event once; what the second handed again is the end of what the first handed before the
    // kill (a batch whose cursor had not moved yet), handed again first.
    const afterKill = lines.slice(beforeKill.length).map(([id]) => id);
    expect(new Set(beforeKill).size).toBe(beforeKill.length);
    expect(new Set(afterKill).size).toBe(afterKill.length);
    const again = afterKill.filter((id) => beforeKill.includes(id));
    expect(afterKill.slice(0, again.length)).toEqual(again);
    expect(beforeKill.slice(beforeKill.length - again.length)).toEqual(again);
  });
});

/**
 * A receiver of webhook deliveries in the test's process: it answers 200 after `delayMs`, and keeps each issue delivery's
 * arrival (the issue's iid, the try's `X-Gitlab-Event-UUID`) and which arrivals it has not answered yet.
 */
async function hookReceiver() {
  const arrivals: { iid: number; uuid: string }[] = [];
  const held = new Set<{ iid: number; uuid: string }>();
  const receiver = {
    arrivals,
    held,
    delayMs: 0,
    url: '',
    close: () => {},
  };
  const server = createServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.headers['x-gitlab-event'] !== 'Issue Hook') return void res.end();
      const arrival = { iid: JSON.parse(body).object_attributes.iid as number, uuid: String(req.headers['x-gitlab-event-uuid']) };
      arrivals.push(arrival);
      held.add(arrival);
      setTimeout(() => {
        held.delete(arrival);
        res.end();
      }, receiver.delayMs);
    });
    // The sender killed while its request is held: nothing to answer.
    res.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return receiver;
}

describe('webhook deliveries, the server killed and started again', { timeout: 120_000 }, () => {
  it('arrive for every acknowledged write, in order, at least once: a repeat only of the one in flight at kill -9', async () => {
    const { flags } = await instanceFlags();
    const receiver = await hookReceiver();
    cleanups.push(async () => receiver.close());
    const WRITES = 30;
    const first = await serve([...flags, '--allow-local-requests']);
    const project = await first.api('POST', '/projects', { name: 'hooked' });
    expect(project.status).toBe(201);
    const id = project.body.id;
    const hook = await first.api('POST', `/projects/${id}/hooks`, { url: receiver.url, push_events: false, issues_events: true });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    // One client, one issue after the other, each acknowledged (201) with its iid; the receiver quick for the first
    // third, then answering each delivery only after 600 ms, so that deliveries wait their turn when the kill comes.
    const acknowledged: number[] = [];
    const write = async (api: Api, index: number) => {
      const created = await api('POST', `/projects/${id}/issues`, { title: `Write ${index}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      acknowledged.push(created.body.iid);
    };
    for (let index = 1; index <= WRITES / 3; index += 1) await write(first.api, index);
    receiver.delayMs = 600;
    for (let index = WRITES / 3 + 1; index <= (2 * WRITES) / 3; index += 1) await write(first.api, index);
    // kill -9 a moment later, while the receiver holds a delivery (the one in flight: a hook's deliveries are sent one
    // at a time), the deliveries of later writes still pending.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 1500));
    await eventually(async () => expect(receiver.held.size).toBeGreaterThan(0), 10_000);
    first.server.child.kill('SIGKILL');
    const inFlight = [...receiver.held].map((arrival) => arrival.iid);
    const arrivedBeforeKill = receiver.arrivals.map((arrival) => arrival.iid);
    await first.server.exited;
    expect(inFlight).toHaveLength(1);
    expect(arrivedBeforeKill.at(-1)).toBe(inFlight[0]);
    // Some deliveries were left to the next process.
    expect(new Set(arrivedBeforeKill).size).toBeLessThan(acknowledged.length);

    receiver.delayMs = 0;
    const second = await serve([...flags, '--allow-local-requests']);
    for (let index = (2 * WRITES) / 3 + 1; index <= WRITES; index += 1) await write(second.api, index);
    expect(acknowledged).toEqual(Array.from({ length: WRITES }, (_, index) => index + 1));
    // Settled: the record holds one delivery per write, in the order of the writes, each delivered (once the hook's
    // claim the killed process held has lapsed, on PostgreSQL): nothing is left to send.
    const settled = async () => {
      const events = await second.api('GET', `/projects/${id}/hooks/${hook.body.id}/events?per_page=100`);
      expect(events.status).toBe(200);
      const deliveries = events.body as { status: string; attempts: number; request_data: { object_attributes: { iid: number } } }[];
      const shown = deliveries.map((delivery) => [delivery.request_data.object_attributes.iid, delivery.status, delivery.attempts]);
      expect(shown.reverse(), `arrivals ${JSON.stringify(receiver.arrivals.map((arrival) => arrival.iid))}`).toEqual(
        acknowledged.map((iid) => [iid, 'delivered', 1]),
      );
    };
    await eventually(settled, 60_000);

    const arrived = receiver.arrivals.map((arrival) => arrival.iid);
    const details = `arrivals ${JSON.stringify(arrived)}; before the kill ${JSON.stringify(arrivedBeforeKill)}; in flight ${inFlight}`;
    // Every acknowledged write's delivery arrived, and first in the order of the writes.
    expect([...new Set(arrived)], details).toEqual(acknowledged);
    // Twice only the one in flight at the kill: its answer never reached the killed process, which had not recorded it
    // as delivered, so the next process sent it again (first). Every other write's delivery arrived once.
    const repeated = arrived.filter((iid, index) => arrived.indexOf(iid) !== index);
    expect(repeated, details).toEqual(inFlight);
    expect(arrived.slice(arrivedBeforeKill.length, arrivedBeforeKill.length + 1), details).toEqual(inFlight);
    // Each try with an `X-Gitlab-Event-UUID` of its own.
    expect(new Set(receiver.arrivals.map((arrival) => arrival.uuid)).size).toBe(receiver.arrivals.length);
    second.server.child.kill('SIGTERM');
    expect(await second.server.exited).toBe(0);
  });
});

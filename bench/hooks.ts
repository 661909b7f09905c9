/**
 * Part of npm run bench (`npm run bench -- hooks` alone, or `node --import ./bench/lib/source-hooks.mjs bench/hooks.ts`
 * after `npm run build`): what webhooks cost the writes that make them, and how fast their deliveries go out. The
 * issue's words: "1,000 writes with 5 hooks each on 2 cores: the writes' CPU per request within 10 % of the same writes
 * without hooks; deliveries drained at the receiver's pace; RSS bounded."
 *
 * Two forgekit instances run in this process, each served by `hosting.router()` in an Express app on a local port
 * (`allowLocalRequests`): one that never has a hook (`plain`), and one whose project gets five (`hooked`). On PostgreSQL
 * (a database each, made on FORGEKIT_BENCH_DATABASE_URL's server for the run and dropped afterwards) and on the embedded
 * database (PGlite, in memory), one after the other. Two child processes, whose CPU is never counted as the server's:
 * the writes' client (bench/lib/write-load.ts: FORGEKIT_BENCH_CONNECTIONS connections, 10, each sending its next write
 * when it has the answer) and the hooks' receiver (bench/lib/hook-receiver.ts: it answers 200 after
 * FORGEKIT_BENCH_RECEIVER_MS, 20, and counts the deliveries, by hook and by event, and any that came twice).
 *
 * A run is FORGEKIT_BENCH_WRITES (1000) writes, half `POST /projects/:id/issues` and half `POST .../issues/:iid/notes`
 * (a note on each new issue), by the project's owner (a user with a personal access token) on a private project. After
 * a warm-up of 100 writes on each instance, in this order:
 *
 * 1. without hooks: a run on the plain instance;
 * 2. with 5 hooks: five hooks made on the hooked instance's project (`POST /projects/:id/hooks`, `issues_events` and
 *    `note_events`, `push_events` off, a token each), then a run there: 5 deliveries a write; then the drain, until the
 *    receiver has them all;
 * 3. without hooks, again: the plain instance once more, the control: what the machine's load and the order moved;
 * 4. a project without hooks, on the hooked instance: what its consumer of the record costs the writes of a project
 *    that has none.
 *
 * For each run: this process's CPU time (`process.cpuUsage`, every thread, PGlite's WebAssembly included; PostgreSQL's
 * own processes not) from the first write sent to the last answered, per write, and its ratio to the first run's (the
 * issue's target) and to the mean of the two runs without hooks, which frame the run with hooks; the writes' latency;
 * the peak RSS (sampled every 20 ms, and the process's maxRSS when that rose). For the deliveries: how many were
 * recorded and received by the end of the writes, the time from the first write to the last delivery beside the
 * receiver's pace (deliveries × delay ÷ the most the receiver held at once: the hooks delivered to at once), and the CPU
 * per delivery: the drain's (after the writes: sending, and what the consumer had left to record) and that of all the
 * hooks' work (the run with hooks and its drain, less the first run without). A write answered other than 201, or none
 * answered for 30 s, or no delivery for 60 s, ends the run with an error (the instance is not waited for).
 *
 * FORGEKIT_BENCH_HOOKS_DATABASES (`postgresql,pglite`): which, in that order. FORGEKIT_BENCH_HOOKS_PROFILE: a directory;
 * each run's writes and the drain are profiled (`node:inspector`, 100 µs sampling) into `<database>-<run>.cpuprofile`
 * there (the profiler's own cost then in the figures).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { createHostingService, type HostingService } from 'forgekit';
import { benchDatabase } from './lib/database.ts';
import { benchUser } from './lib/bench-user.ts';
import type { ReceiverCount } from './lib/hook-receiver.ts';
import { Tracker } from './lib/load.ts';
import type { WriteLoad, WriteResult } from './lib/write-load.ts';

const WRITES = 2 * Math.max(1, Math.round(Number(process.env.FORGEKIT_BENCH_WRITES ?? 1000) / 2));
const WARM_UP_WRITES = 100;
const HOOKS = 5;
const DELAY_MS = Number(process.env.FORGEKIT_BENCH_RECEIVER_MS ?? 20);
const CONNECTIONS = Number(process.env.FORGEKIT_BENCH_CONNECTIONS ?? 10);
const DATABASES = (process.env.FORGEKIT_BENCH_HOOKS_DATABASES ?? 'postgresql,pglite')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const PROFILE = process.env.FORGEKIT_BENCH_HOOKS_PROFILE;
/** The issue's: the writes' CPU per request with hooks within 10 % of without. */
const TARGET_CPU_RATIO = 1.1;
/** "At the receiver's pace", read as: the last delivery within a fifth over the pace. */
const TARGET_PACE_RATIO = 1.2;
/** How long the server may answer no write (well under its 60 s request timeout), and the receiver get no delivery. */
const WRITES_STALL_MS = 30_000;
const DELIVERIES_STALL_MS = 60_000;
const MiB = 2 ** 20;

for (const database of DATABASES)
  if (!['postgresql', 'pglite'].includes(database))
    throw new Error(`FORGEKIT_BENCH_HOOKS_DATABASES: postgresql or pglite, not ${database}`);

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const ratio = (x: number) => `${x.toFixed(2)}x`;
const cpuOf = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** The next message of a child, after sending it one (none: only waits). */
function ask<T>(child: ChildProcess, message?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`a child process of the benchmark exited (${code})`));
    child.once('exit', exited);
    child.once('message', (answer: T | { error: string }) => {
      child.off('exit', exited);
      if (answer && typeof answer === 'object' && 'error' in answer) reject(new Error(answer.error));
      else resolve(answer as T);
    });
    if (message) child.send(message);
  });
}

/** This process's RSS while a phase runs: before, and the peak (sampled every 20 ms, and maxRSS when it rose). */
function watchRss(): { stop(): { before: number; peak: number } } {
  const before = process.memoryUsage.rss();
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  return {
    stop() {
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage.rss());
      const maxAfter = process.resourceUsage().maxRSS * 1024;
      if (maxAfter > maxBefore) peak = Math.max(peak, maxAfter);
      return { before, peak };
    },
  };
}

/** A CPU profile of what `work` does, into FORGEKIT_BENCH_HOOKS_PROFILE when it is set. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(PROFILE, { recursive: true });
    writeFileSync(join(PROFILE, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/** An instance served over HTTP, its owner's token, and what its server answered other than 201 to a write. */
interface Instance {
  hosting: HostingService;
  origin: string;
  tracker: Tracker;
  token: string;
  ownerId: number;
  /** The first write answered other than 201: method, path, status. */
  refused?: string;
  close(): Promise<void>;
}

/** A new instance on the database (a new database on PostgreSQL), listening on a local port. */
async function instance(database: string): Promise<Instance> {
  const storage = mkdtempSync(join(tmpdir(), 'forgekit-bench-hooks-'));
  const closing: (() => Promise<unknown>)[] = [async () => rmSync(storage, { recursive: true, force: true })];
  const close = async () => {
    for (const step of closing.splice(0).reverse()) await step();
  };
  try {
    const created = database === 'postgresql' ? await benchDatabase() : undefined;
    if (created) closing.push(created.drop);
    const hosting = await createHostingService({
      storage,
      allowLocalRequests: true,
      baseUrl: 'http://forgekit.bench',
      ...(created ? { database: { url: created.url } } : {}),
    });
    closing.push(() => hosting.close());
    const server: Server = createServer(express().use(hosting.router()));
    const tracker = new Tracker(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    const { user, token } = await benchUser(hosting);
    const served: Instance = {
      hosting,
      origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tracker,
      token,
      ownerId: user.id,
      close,
    };
    server.on('request', (req, res) =>
      res.on('finish', () => {
        if (req.method === 'POST' && /\/(issues|notes)$/.test(req.url ?? '') && res.statusCode !== 201)
          served.refused ??= `${req.method} ${req.url} answered ${res.statusCode}`;
      }),
    );
    return served;
  } catch (error) {
    await close();
    throw error;
  }
}

/** One run of writes: the client's figures, this process's CPU time (µs) and wall time over it, its RSS. */
interface Run {
  name: string;
  result: WriteResult;
  cpuUs: number;
  ms: number;
  rss: { before: number; peak: number };
}

/** A run of `count` writes on a project of an instance. */
async function writes(writer: ChildProcess, on: Instance, projectId: number, count: number, name: string, profile: string): Promise<Run> {
  const { tracker } = on;
  const watcher = watchRss();
  const cpu = process.cpuUsage();
  const handled = tracker.handled;
  const started = performance.now();
  // A write refused, or none answered for a while (a stalled instance answers 503 after its request timeout), ends the run.
  let answered = handled;
  let answeredAt = started;
  let stalled: (error: Error) => void = () => {};
  const watchdog = setInterval(() => {
    if (on.refused) stalled(new Error(`${name}: ${on.refused}`));
    else if (tracker.handled !== answered) [answered, answeredAt] = [tracker.handled, performance.now()];
    else if (performance.now() - answeredAt > WRITES_STALL_MS)
      stalled(
        new Error(`${name}: the server answered no write for ${WRITES_STALL_MS / 1000} s (${answered - handled} of ${count} answered)`),
      );
  }, 1000);
  const load: WriteLoad = { origin: on.origin, token: on.token, projectId, pairs: count / 2, connections: CONNECTIONS, label: profile };
  const result = await profiled(profile, async () => {
    const answer = await Promise.race([ask<WriteResult>(writer, load), new Promise<never>((_, reject) => (stalled = reject))]);
    await tracker.idle();
    return answer;
  }).finally(() => clearInterval(watchdog));
  const ms = performance.now() - started;
  const cpuUs = cpuOf(cpu);
  const rss = watcher.stop();
  if (result.failures) throw new Error(`${name}: ${result.failures} of ${result.writes} writes failed; the first: ${result.failure}`);
  if (tracker.handled - handled !== count) throw new Error(`${name}: the server handled ${tracker.handled - handled} of ${count} writes`);
  return { name, result, cpuUs, ms, rss };
}

const receiverCount = (receiver: ChildProcess) => ask<ReceiverCount>(receiver, { count: true });

async function bench(database: string, writer: ChildProcess): Promise<void> {
  const name = database === 'pglite' ? 'PGlite (in memory)' : 'PostgreSQL';
  const receiver = fork(new URL('./lib/hook-receiver.ts', import.meta.url), [String(DELAY_MS)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const instances: Instance[] = [];
  try {
    const receiverUrl = (await ask<{ url: string }>(receiver)).url;
    const plain = await instance(database);
    instances.push(plain);
    const hooked = await instance(database);
    instances.push(hooked);
    const project = async (on: Instance, path: string) => (await on.hosting.as(on.ownerId).projects.create({ name: path })).id;
    const [plainWarmUp, plainProject, hookedWarmUp, hookedProject, hooklessProject] = [
      await project(plain, 'warm-up'),
      await project(plain, 'without-hooks'),
      await project(hooked, 'warm-up'),
      await project(hooked, 'with-hooks'),
      await project(hooked, 'no-hooks-of-its-own'),
    ];
    console.log(`\n${name}: ${WRITES} writes a run, ${CONNECTIONS} connections; load average ${load()}.`);
    await writes(writer, plain, plainWarmUp, WARM_UP_WRITES, 'warm-up', `${database}-warm-up-plain`);
    await writes(writer, hooked, hookedWarmUp, WARM_UP_WRITES, 'warm-up', `${database}-warm-up-hooked`);

    const without = await writes(writer, plain, plainProject, WRITES, 'without hooks', `${database}-without-hooks`);

    // The hooks, as a maintainer makes them.
    const hookIds: number[] = [];
    for (let index = 1; index <= HOOKS; index++) {
      const res = await fetch(`${hooked.origin}/api/v4/projects/${hookedProject}/hooks`, {
        method: 'POST',
        headers: { 'private-token': hooked.token, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `${receiverUrl}/hook/${index}`,
          issues_events: true,
          note_events: true,
          push_events: false,
          token: `bench-hook-token-${index}`,
        }),
      });
      const body = (await res.json()) as { id: number };
      if (res.status !== 201) throw new Error(`POST /projects/:id/hooks answered ${res.status}: ${JSON.stringify(body)}`);
      hookIds.push(body.id);
    }
    const expected = WRITES * HOOKS;

    const withHooks = await writes(writer, hooked, hookedProject, WRITES, `with ${HOOKS} hooks`, `${database}-with-hooks`);
    const receivedByWritesEnd = (await receiverCount(receiver)).deliveries;
    // The deliveries recorded by then (pending or sent): the hooks' events lists, their `X-Total`.
    let recordedByWritesEnd = 0;
    for (const hookId of hookIds) {
      const res = await fetch(`${hooked.origin}/api/v4/projects/${hookedProject}/hooks/${hookId}/events?per_page=1`, {
        headers: { 'private-token': hooked.token },
      });
      await res.arrayBuffer();
      recordedByWritesEnd += Number(res.headers.get('x-total') ?? Number.NaN);
    }

    // ---- The drain: until the receiver has every delivery.
    const watcher = watchRss();
    const cpu = process.cpuUsage();
    const drainStarted = performance.now();
    const count = await profiled(`${database}-drain`, async () => {
      let last = await receiverCount(receiver);
      let progressAt = performance.now();
      while (last.deliveries < expected) {
        await sleep(100);
        const now = await receiverCount(receiver);
        if (now.deliveries > last.deliveries) progressAt = performance.now();
        else if (performance.now() - progressAt > DELIVERIES_STALL_MS)
          throw new Error(`the receiver got ${now.deliveries} of ${expected} deliveries, and none for ${DELIVERIES_STALL_MS / 1000} s`);
        last = now;
      }
      return last;
    });
    const drainCpuUs = cpuOf(cpu);
    const drainRss = watcher.stop();
    const drainMs = count.lastAt - (performance.timeOrigin + drainStarted);
    // Anything more would be a delivery made twice: a moment for it to come.
    await sleep(1000);
    const final = await receiverCount(receiver);

    const again = await writes(writer, plain, plainProject, WRITES, 'without hooks, again', `${database}-without-hooks-again`);
    const hookless = await writes(
      writer,
      hooked,
      hooklessProject,
      WRITES,
      'a project without hooks, beside hooks',
      `${database}-project-without-hooks`,
    );

    // ---- The tables.
    const baseline = (without.cpuUs + again.cpuUs) / 2;
    console.log(
      "\nCPU: this process's (every thread; not PostgreSQL's processes) from the first write sent to the last answered. " +
        'Ratios: ÷ the first run without hooks, and ÷ the mean of the two (before and after the run with hooks). ' +
        "RSS: this process's (both instances), peak while the run lasted.",
    );
    console.log(
      '\n| run | writes | wall | writes/s | p50 ms | p90 ms | p99 ms | CPU µs/write | ÷ without hooks | ÷ mean of both | ' +
        'RSS before | peak RSS |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const run of [without, withHooks, again, hookless]) {
      console.log(
        `| ${run.name} | ${run.result.writes} | ${seconds(run.ms)} | ${((run.result.writes / run.ms) * 1000).toFixed(0)} | ` +
          `${run.result.p50.toFixed(1)} | ${run.result.p90.toFixed(1)} | ${run.result.p99.toFixed(1)} | ` +
          `${(run.cpuUs / run.result.writes).toFixed(0)} | ${ratio(run.cpuUs / without.cpuUs)} | ${ratio(run.cpuUs / baseline)} | ` +
          `${mib(run.rss.before)} | ${mib(run.rss.peak)} |`,
      );
    }
    const firstToLast = count.lastAt - (performance.timeOrigin + (drainStarted - withHooks.ms));
    const pace = (expected * DELAY_MS) / Math.max(1, count.mostAtOnce);
    const drained = expected - receivedByWritesEnd;
    console.log(
      "\n| deliveries | recorded by the writes' end | received by then | drain after the writes | first write to last delivery | " +
        "receiver's pace | ÷ pace | CPU µs/delivery, drain | CPU µs/delivery, all hook work | peak RSS, drain |",
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    console.log(
      `| ${final.deliveries} of ${expected} | ${recordedByWritesEnd} | ${receivedByWritesEnd} | ${seconds(drainMs)} | ` +
        `${seconds(firstToLast)} | ${seconds(pace)} (${expected} × ${DELAY_MS} ms ÷ ${count.mostAtOnce} at once) | ` +
        `${ratio(firstToLast / pace)} | ${drained ? (drainCpuUs / drained).toFixed(0) : '—'} | ` +
        `${((withHooks.cpuUs + drainCpuUs - without.cpuUs) / expected).toFixed(0)} | ${mib(drainRss.peak)} |`,
    );
    const byEvent = Object.entries(final.byEvent)
      .map(([event, n]) => `${event} ${n}`)
      .join(', ');
    console.log(
      `\nReceived: ${byEvent}; by hook ${Object.values(final.byHook).join(', ')}; ${final.repeated} twice, ${final.malformed} ` +
        `malformed. The drain: ${(drainCpuUs / 1000).toFixed(0)} ms of CPU over ${seconds(drainMs)}.`,
    );
    const cpuRatio = withHooks.cpuUs / without.cpuUs;
    const framed = withHooks.cpuUs / baseline;
    const paceRatio = firstToLast / pace;
    const within = (x: number, target: number) => `${ratio(x)} ${x <= target ? '≤' : '>'} ${ratio(target)}`;
    console.log(
      `Targets: the writes' CPU with hooks ${within(cpuRatio, TARGET_CPU_RATIO)} (${within(framed, TARGET_CPU_RATIO)} of the mean): ` +
        `${cpuRatio <= TARGET_CPU_RATIO ? 'met' : 'MISSED'}; the last delivery at ${within(paceRatio, TARGET_PACE_RATIO)} the ` +
        `receiver's pace: ${paceRatio <= TARGET_PACE_RATIO ? 'met' : 'MISSED'}; peak RSS ${mib(without.rss.peak)} without hooks, ` +
        `${mib(Math.max(withHooks.rss.peak, drainRss.peak))} with them and their drain, ${mib(again.rss.peak)} after.`,
    );
    if (final.deliveries !== expected || final.repeated || final.malformed)
      throw new Error(
        `the receiver got ${final.deliveries} deliveries (${final.repeated} twice, ${final.malformed} malformed), not ${expected}`,
      );
  } finally {
    receiver.disconnect();
    // A stalled instance may never finish its calls: its closing is not waited for past a while.
    for (const served of instances) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        served.close().finally(() => clearTimeout(timer)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, 30_000))).then(() => console.error(`${name}: closing timed out`)),
      ]);
    }
  }
}

console.log(`\nNode.js ${process.version}, ${availableParallelism()} cores; receiver: ${DELAY_MS} ms a delivery; ${HOOKS} hooks.`);
const writer = fork(new URL('./lib/write-load.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const started = performance.now();
try {
  for (const database of DATABASES) await bench(database, writer);
} catch (error) {
  console.error(error);
  // What a stalled instance still holds (its timers, its database) must not keep the process.
  process.exit(1);
} finally {
  writer.disconnect();
}
console.log(`\nLoad average ${load()} at the end; ${((performance.now() - started) / 1000).toFixed(0)} s in all.`);

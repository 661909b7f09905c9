/**
 * Part of npm run bench (`npm run bench -- test-double`): what a test double's clean state costs, beside a fresh
 * instance (docs/testing.md). On in-memory PGlite and on PostgreSQL (`isolated`, a database of its own), an instance
 * with a few hundred rows and a few repositories (5 projects with a commit each, 100 issues with a note each, 10 users):
 *
 * - `reset()` back to the first start, after the writes were made again each time;
 * - `restore(name)` of a snapshot of that state, after a few more writes each time;
 * - `snapshot(name)` of it;
 * - beside them, a fresh instance (`createHostingService`), and PGlite's own start from its data directory.
 *
 * Medians of wall-clock and of this process's CPU time (the machine may be shared: CPU moves less). No assertion.
 * FORGEKIT_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createHostingService, type HostingService } from 'forgekit';

const SERVER = process.env.FORGEKIT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = 9;

interface Timing {
  wall: number;
  cpu: number;
}

async function timed(work: () => Promise<unknown>): Promise<Timing> {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await work();
  const cpu = process.cpuUsage(cpuStart);
  return { wall: performance.now() - start, cpu: (cpu.user + cpu.system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const both = (timings: Timing[]) =>
  `${ms(median(timings.map((timing) => timing.wall)))} (CPU ${ms(median(timings.map((timing) => timing.cpu)))})`;
const row = (label: string, value: string) => console.log(`  ${label.padEnd(46)}${value}`);

/** A few hundred rows and a few repositories. */
async function fill(hosting: HostingService): Promise<void> {
  for (let index = 0; index < 10; index++)
    await hosting.users.create({
      username: `user${index}`,
      email: `user${index}@example.com`,
      name: `User ${index}`,
      password: 'a password long enough',
    });
  for (let index = 0; index < 5; index++) {
    const project = await hosting.projects.create({ name: `Project ${index}` });
    await hosting.commits.create(project.id, {
      branch: 'master',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'README.md', content: '# Hello\n' }],
    });
    for (let issue = 0; issue < 20; issue++) {
      const made = await hosting.issues.create(project.id, { title: `Issue ${issue}` });
      await hosting.issueNotes.create(project.id, made.iid, { body: 'A note' });
    }
  }
}

async function measure(label: string, open: () => Promise<HostingService>): Promise<void> {
  const hosting = await open();
  try {
    const resets: Timing[] = [];
    for (let run = 0; run < RUNS; run++) {
      await fill(hosting);
      resets.push(await timed(() => hosting.reset()));
    }
    await fill(hosting);
    const snapshots: Timing[] = [];
    for (let run = 0; run < RUNS; run++) snapshots.push(await timed(() => hosting.snapshot(`filled-${run}`)));
    const restores: Timing[] = [];
    const project = (await hosting.projects.list({ per_page: 1 }))[0];
    for (let run = 0; run < RUNS; run++) {
      for (let issue = 0; issue < 5; issue++) await hosting.issues.create(project.id, { title: `More ${issue}` });
      restores.push(await timed(() => hosting.restore('filled-0')));
    }
    const fresh: Timing[] = [];
    for (let run = 0; run < 5; run++) {
      let other: HostingService | undefined;
      fresh.push(await timed(async () => (other = await open())));
      await other?.close();
    }
    console.log(label);
    row('reset() after 410 rows and 5 repositories made', both(resets));
    row('snapshot() of them', both(snapshots));
    row('restore() of that snapshot after 5 more issues', both(restores));
    row('a fresh instance', both(fresh));
  } finally {
    await hosting.close();
  }
}

await measure('in memory (PGlite)', () => createHostingService({ testDouble: true }));
const dataDir = await (async () => {
  const source = await PGlite.create({ extensions: { pg_trgm } });
  await source.query('create extension pg_trgm');
  const dumped = await source.dumpDataDir('none');
  await source.close();
  return dumped;
})();
const starts: Timing[] = [];
for (let run = 0; run < 5; run++) {
  let pglite: PGlite | undefined;
  starts.push(await timed(async () => (pglite = await PGlite.create({ loadDataDir: dataDir, extensions: { pg_trgm } }))));
  await pglite?.close();
}
row("PGlite's own start from a data directory", both(starts));
try {
  await measure('PostgreSQL (isolated)', () => createHostingService({ testDouble: true, database: { url: SERVER, isolated: true } }));
} catch (error) {
  console.log(`PostgreSQL: skipped (${(error as Error).message})`);
}

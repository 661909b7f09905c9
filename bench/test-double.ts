/**
 * Part of npm run bench (`npm run bench -- test-double`): what a test double's clean state costs, beside a fresh
 * instance (docs/testing.md). On in-memory PGlite and on PostgreSQL (`isolated`, a database of its own), an instance
 * with a few hundred rows and a few repositories (5 projects with a commit each, 100 issues with a note each, 10 users):
 *
 * - `reset()` back to the first start, after a project and an issue were made (as a typical test), and after the
 *   writes were made again each time;
 * - `restore(name)` of a snapshot of that state, after a few more writes each time;
 * - `snapshot(name)` of it, and `saveSnapshot(file)` and `loadSnapshot(file)` of it;
 * - beside them, a fresh instance (`createHostingService`), and PGlite's own start from its data directory.
 *
 * Medians of wall-clock and of this process's CPU time (the machine may be shared: CPU moves less). No assertion.
 * FORGEKIT_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHostingService, type HostingService } from 'forgekit';
import { both, dataDirLikeForgekits, instances, pgliteStarts, type Timing, timed } from './lib/timing.js';

const SERVER = process.env.FORGEKIT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = 9;

const row = (label: string, value: string) => console.log(`  ${label.padEnd(50)}${value}`);

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
    // As a typical test: a project and an issue made, then the reset.
    const small: Timing[] = [];
    for (let run = 0; run < RUNS; run++) {
      const project = await hosting.projects.create({ name: `Small ${run}` });
      await hosting.issues.create(project.id, { title: 'A test' });
      small.push(await timed(() => hosting.reset()));
    }
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
    const file = join(mkdtempSync(join(tmpdir(), 'forgekit-bench-')), 'filled.zip');
    const saves: Timing[] = [];
    for (let run = 0; run < RUNS; run++) saves.push(await timed(() => hosting.saveSnapshot(file)));
    const loads: Timing[] = [];
    for (let run = 0; run < RUNS; run++) loads.push(await timed(() => hosting.loadSnapshot(file)));
    rmSync(dirname(file), { recursive: true, force: true });
    const fresh = await instances(5, open);
    console.log(label);
    row('reset() after a project and an issue made', both(small));
    row('reset() after 410 rows and 5 repositories made', both(resets));
    row('snapshot() of them', both(snapshots));
    row('restore() of that snapshot after 5 more issues', both(restores));
    row('saveSnapshot() of them to a file', both(saves));
    row('loadSnapshot() of that file', both(loads));
    row('a fresh instance', both(fresh));
  } finally {
    await hosting.close();
  }
}

await measure('in memory (PGlite)', () => createHostingService({ testDouble: true }));
const starts = await pgliteStarts(5, await dataDirLikeForgekits());
row("PGlite's own start from a data directory", both(starts));
try {
  await measure('PostgreSQL (isolated)', () => createHostingService({ testDouble: true, database: { url: SERVER, isolated: true } }));
} catch (error) {
  console.log(`PostgreSQL: skipped (${(error as Error).message})`);
}

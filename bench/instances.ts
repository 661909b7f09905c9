/**
 * Part of npm run bench: what a fresh instance costs.
 *
 * - in memory: the first `createHostingService()` in a process (it makes the migrated data directory the
 *   others start from), the median of later ones, and beside them the floor: PGlite itself starting from a
 *   data directory, with no forgekit around it;
 * - on PostgreSQL, `database: { url, isolated: true }`: the median fresh instance against a `SELECT 1` round
 *   trip on an open connection, and against opening a connection for one `SELECT 1`;
 * - `import('forgekit')` in a new process, beside `import('express')` as a floor;
 * - beside a fresh instance, a test double's seed of 100 projects with 10 issues each (`seed 100x10`; docs/testing.md
 *   "Seeds"), in a fresh instance each time: the first in the process (which compiles the seeds' schema) and the median
 *   of later ones.
 *
 * Medians and ratios only, no assertions: the machine may be shared and noisy. Beside wall-clock times, the
 * CPU time of the process that did the work, which a loaded machine inflates far less.
 * FORGEKIT_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createHostingService } from 'forgekit';
import { both, dataDirLikeForgekits, instances, medianOf, ms, pgliteStarts, ratio, type Timing, timed } from './lib/timing.js';

const SERVER = process.env.FORGEKIT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LATER = 9;
const IMPORTS = 7;
const SEEDS = 5;

/** What the seeds' figure makes: a user, and 100 projects of its with 10 issues each. */
const SEED = {
  users: [{ username: 'bench' }],
  projects: Array.from({ length: 100 }, (_, project) => ({
    path: `project-${project}`,
    namespace: 'bench',
    issues: Array.from({ length: 10 }, (_, issue) => ({ title: `Issue ${issue}` })),
  })),
};

const row = (label: string, value: string) => console.log(`  ${label.padEnd(37)}${value}`);

/** Times `hosting.seed(SEED)` in `count` fresh test doubles; each is opened and closed outside the timing. */
async function seeds(count: number, options: Parameters<typeof createHostingService>[0]): Promise<Timing[]> {
  const times: Timing[] = [];
  for (let run = 0; run < count; run++) {
    const hosting = await createHostingService({ ...options, testDouble: true });
    times.push(await timed(() => hosting.seed(SEED)));
    await hosting.close();
  }
  return times;
}

async function inMemory(): Promise<void> {
  const first = await instances(1, () => createHostingService());
  const later = await instances(LATER, () => createHostingService());
  const [firstSeed, ...laterSeeds] = await seeds(SEEDS + 1, {});
  const dataDir = await dataDirLikeForgekits();
  const floor = await pgliteStarts(LATER, dataDir);
  console.log('in-memory instance');
  row('first in the process', both(first));
  row(`later ones (median of ${LATER})`, both(later));
  row(
    'PGlite alone, from a data directory',
    `${both(floor)}  the floor: later instances are ${ratio(medianOf(later, 'cpu'), medianOf(floor, 'cpu'))} of its CPU`,
  );
  row('seed 100x10: first in the process', both([firstSeed]));
  row(
    `seed 100x10: later (median of ${SEEDS})`,
    `${both(laterSeeds)}  = ${ratio(medianOf(laterSeeds, 'wall'), medianOf(later, 'wall'))} a later instance`,
  );
}

async function postgreSql(): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER });
  try {
    await client.connect();
  } catch (error) {
    console.log(`PostgreSQL: skipped, ${SERVER} is not reachable (${(error as Error).message})`);
    return;
  }
  const selects: Timing[] = [];
  for (let run = 0; run < 200; run++) selects.push(await timed(() => client.query('select 1')));
  await client.end();
  const select = medianOf(selects, 'wall');
  const connects: Timing[] = [];
  for (let run = 0; run < 20; run++) {
    connects.push(
      await timed(async () => {
        const fresh = new pg.Client({ connectionString: SERVER });
        await fresh.connect();
        await fresh.query('select 1');
        await fresh.end();
      }),
    );
  }
  const connect = medianOf(connects, 'wall');
  const open = () => createHostingService({ database: { url: SERVER, isolated: true } });
  const first = medianOf(await instances(1, open), 'wall');
  const instance = medianOf(await instances(LATER, open), 'wall');
  const seeded = medianOf(await seeds(SEEDS, { database: { url: SERVER, isolated: true } }), 'wall');
  const closes: Timing[] = [];
  for (let run = 0; run < 5; run++) {
    const hosting = await open();
    closes.push(await timed(() => hosting.close()));
  }
  console.log('PostgreSQL instance, database: { url, isolated: true }');
  row('SELECT 1 on an open connection', ms(select));
  row('connect + SELECT 1', ms(connect));
  row('first in the process', ms(first));
  row(
    `later ones (median of ${LATER})`,
    `${ms(instance)}  = ${ratio(instance, select)} SELECT 1, ${ratio(instance, connect)} connect + SELECT 1`,
  );
  row(`seed 100x10 (median of ${SEEDS})`, `${ms(seeded)}  = ${ratio(seeded, instance)} a later instance`);
  row('close(), dropping its database', ms(medianOf(closes, 'wall')));
}

/** Each import in a new process, alternating between the two, so that both see the same load. */
function imports(): void {
  const importTime = (specifier: string): Timing =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const t = performance.now(), c = process.cpuUsage(); await import('${specifier}'); const u = process.cpuUsage(c);
           console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }))`,
        ],
        { cwd: ROOT, encoding: 'utf8' },
      ),
    );
  const forgekit: Timing[] = [];
  const express: Timing[] = [];
  for (let run = 0; run < IMPORTS; run++) {
    forgekit.push(importTime('forgekit'));
    express.push(importTime('express'));
  }
  console.log(`import (median of ${IMPORTS}, each in a new process)`);
  row("import('forgekit')", `${both(forgekit)}  = ${ratio(medianOf(forgekit, 'wall'), medianOf(express, 'wall'))} express`);
  row("import('express')", both(express));
}

await inMemory();
await postgreSql();
imports();

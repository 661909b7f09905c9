/**
 * Timings for the benchmarks that time one piece of work at a time (bench/instances.ts, bench/test-double.ts):
 * wall-clock time and this process's CPU time, which a loaded machine inflates far less; medians only.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export interface Timing {
  wall: number;
  cpu: number;
}

export async function timed(work: () => Promise<unknown>): Promise<Timing> {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await work();
  const cpu = process.cpuUsage(cpuStart);
  return { wall: performance.now() - start, cpu: (cpu.user + cpu.system) / 1000 };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export const medianOf = (timings: Timing[], key: keyof Timing) => median(timings.map((timing) => timing[key]));
export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
/** The medians of both, as `12 ms (CPU 10 ms)`. */
export const both = (timings: Timing[]) => `${ms(medianOf(timings, 'wall'))} (CPU ${ms(medianOf(timings, 'cpu'))})`;

/** Times `count` opens; each instance is closed outside the timing. */
export async function instances(count: number, open: () => Promise<{ close(): Promise<void> }>): Promise<Timing[]> {
  const times: Timing[] = [];
  for (let run = 0; run < count; run++) {
    let instance: { close(): Promise<void> } | undefined;
    times.push(await timed(async () => (instance = await open())));
    await instance?.close();
  }
  return times;
}

/** A data directory like the one forgekit starts in-memory databases from: pg_trgm, no template databases. */
export async function dataDirLikeForgekits(): Promise<Blob> {
  const source = await PGlite.create({ extensions: { pg_trgm } });
  await source.query('create extension pg_trgm');
  for (const template of ['template0', 'template1']) {
    await source.query(`alter database ${template} is_template false`);
    await source.query(`drop database ${template}`);
  }
  await source.query('checkpoint');
  const dataDir = await source.dumpDataDir('none');
  await source.close();
  return dataDir;
}

/** PGlite alone starting from that data directory, `count` times: the floor under a fresh in-memory instance. */
export async function pgliteStarts(count: number, dataDir: Blob): Promise<Timing[]> {
  return instances(count, () => PGlite.create({ loadDataDir: dataDir, extensions: { pg_trgm } }));
}

/** The PostgreSQL server the benchmarks make their databases on, one per data set, dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_SERVER = process.env.FORGEKIT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_SERVER });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the server: its URL, and how to drop it. */
export async function benchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `forgekit_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${name}"`);
  const url = new URL(POSTGRES_SERVER);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists "${name}" with (force)`) };
}

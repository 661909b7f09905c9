/**
 * A data directory's PGlite, in a worker thread of its own (src/db/pglite-thread.ts starts it): PGlite runs every
 * statement on the thread that owns it, and on the event loop's thread each statement held every request behind it.
 * Here the statements run while the main thread serves requests. It answers the calls of the instance's stand-in,
 * one message each, and holds the transactions it begins until they are committed or rolled back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPostgreSqlTypeParsers } from '@mikro-orm/sql';
import array from 'postgres-array';
import type { PgliteCall, PgliteReply } from './pglite-thread.js';

const port = parentPort!;
const { dataDir } = workerData as { dataDir: string };

/** The values PostgreSQL's text gives, read as the ORM reads them in the main thread (dates, arrays, numbers). */
const db = await PGlite.create({ dataDir, extensions: { pg_trgm }, parsers: createPostgreSqlTypeParsers((text) => array.parse(text)) });

/** A transaction begun for the main thread, until it ends. */
interface Open {
  tx: Transaction;
  end(commit: boolean): void;
}
const open = new Map<number, Open>();
/** Each open transaction's end: settles once PGlite has committed it or rolled it back. */
const endings = new Map<number, Promise<unknown>>();
let lastTransaction = 0;

/** What the main thread may be sent of an error: its message and the fields PostgreSQL gave (`code`, `constraint`, ...). */
function errorFields(error: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: 'Error', message: String(error) };
  if (error instanceof Error) {
    for (const [key, value] of Object.entries(error))
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
    fields.name = error.name;
    fields.message = error.message;
  }
  return fields;
}

/** A transaction begun: its ID once PGlite holds it (other statements wait until it ends, as they would in the main thread). */
function begin(): Promise<number> {
  const id = ++lastTransaction;
  return new Promise((begun, failed) => {
    let end!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (end = resolve));
    const ended = db
      .transaction(async (tx) => {
        open.set(id, { tx, end });
        begun(id);
        if (!(await decided)) await tx.rollback();
      })
      .finally(() => {
        open.delete(id);
        endings.delete(id);
      });
    endings.set(id, ended);
    ended.catch(failed);
  });
}

async function finish(id: number, commit: boolean): Promise<void> {
  const transaction = open.get(id);
  if (!transaction) throw new Error(`no open transaction ${id}`);
  const ended = endings.get(id);
  transaction.end(commit);
  await ended;
}

async function answer(call: PgliteCall): Promise<unknown> {
  const on = call.tx === undefined ? db : open.get(call.tx)?.tx;
  switch (call.op) {
    case 'query':
      if (!on) throw new Error(`no open transaction ${call.tx}`);
      return on.query(call.sql, call.params, call.options);
    case 'exec':
      if (!on) throw new Error(`no open transaction ${call.tx}`);
      return on.exec(call.sql);
    case 'begin':
      return begin();
    case 'commit':
      return finish(call.tx!, true);
    case 'rollback':
      return finish(call.tx!, false);
    case 'listen':
      await db.listen(call.channel, (payload) => port.postMessage({ channel: call.channel, payload } satisfies PgliteReply));
      return undefined;
    case 'close':
      await db.close();
      return undefined;
  }
}

port.on('message', (call: PgliteCall) => {
  answer(call).then(
    (result) => port.postMessage({ id: call.id, result } satisfies PgliteReply),
    (error: unknown) => port.postMessage({ id: call.id, error: errorFields(error) } satisfies PgliteReply),
  );
});
port.postMessage({ ready: true } satisfies PgliteReply);

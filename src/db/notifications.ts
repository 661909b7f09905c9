import type { PgliteConnection } from '@mikro-orm/pglite';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { Database } from './orm.js';

/**
 * LISTENs on `channel`: `heard` runs on every notification sent there, by this process or any other on the
 * same database. An embedded database has one session, which LISTENs for as long as it is open. On
 * PostgreSQL one connection of the pool LISTENs and stays there (the pool keeps using it for queries): when
 * the pool closes it (with the others, or once it has idled), `lost` runs, and the caller listens again when
 * it next needs to.
 */
export async function listen(db: Database, channel: string, heard: () => void, lost: () => void): Promise<void> {
  const connection = db.orm.driver.getConnection();
  if (!db.shared) {
    await (await (connection as PgliteConnection).getNativeClient()).listen(channel, heard);
    return;
  }
  const client = await (await (connection as PostgreSqlConnection).getNativeClient()).connect();
  try {
    client.on('notification', (notification) => {
      if (notification.channel === channel) heard();
    });
    client.once('end', lost);
    await client.query(`listen ${channel}`);
  } finally {
    client.release();
  }
}

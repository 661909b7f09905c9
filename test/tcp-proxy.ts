import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 to one host and port, which a test turns against the connections through it: `cut()`
 * ends every one at once, as a network failure or a failover does, and while `refuse(true)` holds each new one
 * ends as soon as it is made, as with a server that is down. Each side of a connection ends with a reset, so that
 * the client sees ECONNRESET and the server (PostgreSQL) ends the session behind it, rolling back what it had open.
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private refusing = false;

  private constructor(
    private readonly server: Server,
    /** The port it listens on, on 127.0.0.1. */
    readonly port: number,
  ) {}

  /** A proxy to `targetHost:targetPort`, listening on a free port. */
  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, targetPort, targetHost));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the proxy has no port');
    proxy = new TcpProxy(server, address.port);
    return proxy;
  }

  /** How many connections are open through it. */
  get open(): number {
    return this.pairs.size;
  }

  /** Ends every open connection, both sides at once; says how many there were. */
  cut(): number {
    const count = this.pairs.size;
    for (const pair of [...this.pairs]) this.end(pair);
    return count;
  }

  /** While on, a new connection is ended as soon as it is accepted; off, connections go through again. */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  /** Stops listening and ends every connection. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number, targetHost: string): void {
    client.on('error', () => {});
    if (this.refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    upstream.on('error', () => {});
    const pair = { client, upstream };
    this.pairs.add(pair);
    // One side gone (closed, or refused: the target is down), the other goes too.
    client.once('close', () => this.end(pair));
    upstream.once('close', () => this.end(pair));
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private end(pair: { client: Socket; upstream: Socket }): void {
    if (!this.pairs.delete(pair)) return;
    for (const socket of [pair.client, pair.upstream]) {
      // A socket still connecting is reset once connected; one closed already is only destroyed.
      if (socket.destroyed) continue;
      try {
        socket.resetAndDestroy();
      } catch {
        socket.destroy();
      }
    }
  }
}

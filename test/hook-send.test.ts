/** One webhook delivery over HTTP (src/services/hooks/send.ts): what it sends, what it records, what it refuses. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delivered, sendHook } from '../src/services/hooks/send.js';

let server: Server;
let base: string;
const received: { headers: IncomingMessage['headers']; body: string; path: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body, path: request.url! });
      if (request.url === '/moved') return void response.writeHead(302, { Location: '/elsewhere' }).end();
      if (request.url === '/silent') return; // never answers
      if (request.url === '/large') return void response.writeHead(200).end('x'.repeat(100_000));
      response.writeHead(request.url === '/fails' ? 500 : 200, { 'X-Receiver': 'test' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const send = (path: string, options: { allowLocalRequests?: boolean; timeoutMs?: number } = {}) =>
  sendHook({
    url: `${base}${path}`,
    headers: { 'Content-Type': 'application/json', 'X-Gitlab-Event': 'Push Hook' },
    body: '{"object_kind":"push"}',
    allowLocalRequests: options.allowLocalRequests ?? true,
    verifySsl: true,
    timeoutMs: options.timeoutMs,
  });

describe('a webhook delivery', () => {
  it('posts the payload with its headers, and records the response', async () => {
    const response = await send('/hook');
    expect(response).toMatchObject({ status: 200, body: '{"ok":true}', error: null });
    expect(response.headers['x-receiver']).toBe('test');
    expect(delivered(response)).toBe(true);
    const last = received.at(-1)!;
    expect(last).toMatchObject({ path: '/hook', body: '{"object_kind":"push"}' });
    expect(last.headers).toMatchObject({ 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'content-length': '22' });
    const failed = await send('/fails');
    expect([failed.status, delivered(failed)]).toEqual([500, false]);
  });

  it('refuses a local address unless allowed, without connecting', async () => {
    const before = received.length;
    const refused = await send('/hook', { allowLocalRequests: false });
    expect(refused).toMatchObject({
      status: null,
      error: expect.stringMatching(/^Requests to (localhost|loopback addresses) are not allowed$/),
    });
    expect(received.length).toBe(before);
  });

  it('does not follow a redirect, gives up on a silent receiver, and keeps 8 KiB of a body', async () => {
    expect(await send('/moved')).toMatchObject({ status: 302, error: null });
    expect(received.some((request) => request.path === '/elsewhere')).toBe(false);
    expect(await send('/silent', { timeoutMs: 200 })).toMatchObject({ status: null, error: 'execution expired' });
    expect((await send('/large')).body).toHaveLength(8192);
    expect((await sendHook({ url: 'ftp://example.com/', headers: {}, body: '', allowLocalRequests: true, verifySsl: true })).error).toBe(
      'Only allowed protocols are http, https',
    );
  });

  it('keeps the connection to a receiver between deliveries, and sends again on a new one when the receiver closed it', async () => {
    // A receiver that answers one request a connection and keeps it, then resets it at the next request on it.
    const connections: Socket[] = [];
    const receiver = createTcpServer((socket) => {
      connections.push(socket);
      let requests = 0;
      socket.on('data', (data) => {
        if (!data.includes('\r\n\r\n{')) return;
        if (++requests > 1) return void socket.resetAndDestroy();
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const post = () =>
        sendHook({ url, headers: { 'Content-Type': 'application/json' }, body: '{"a":1}', allowLocalRequests: true, verifySsl: true });
      expect(await post()).toMatchObject({ status: 200, body: 'ok', error: null });
      // The kept connection, reset when used: the delivery goes again on a new one, and is answered.
      expect(await post()).toMatchObject({ status: 200, body: 'ok', error: null });
      expect(connections.length).toBe(2);
    } finally {
      for (const socket of connections) socket.destroy();
      receiver.close();
    }
  });
});

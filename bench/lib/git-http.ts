/**
 * git's smart HTTP server for the benchmarks: `git http-backend` (a CGI program, one process per request, as a
 * web server runs it) serving the bare repositories under `root`, on 127.0.0.1. The remote of the imports that
 * bench/history.ts and bench/mixed-load.ts time, and of `git clone --mirror` beside them (the idea of
 * test/git-http.ts, without its test doubles).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function gitHttpServer(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const children = new Set<ChildProcess>();
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url!, 'http://localhost');
    const child = spawn('git', ['http-backend'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method,
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: (request.headers['git-protocol'] as string | undefined) ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    children.add(child);
    child.on('close', () => children.delete(child));
    child.on('error', (error) => response.destroy(error));
    child.stdin!.on('error', () => {});
    request.pipe(child.stdin!);
    // The CGI answer: headers (a `Status` among them), a blank line, the body, which streams on.
    let head = Buffer.alloc(0);
    let headed = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      if (headed) {
        if (!response.write(chunk)) {
          child.stdout!.pause();
          response.once('drain', () => child.stdout!.resume());
        }
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headed = true;
      const headers = Object.fromEntries(
        head
          .subarray(0, end)
          .toString()
          .split('\r\n')
          .map((line) => {
            const colon = line.indexOf(':');
            return [line.slice(0, colon), line.slice(colon + 1).trim()];
          }),
      );
      const status = Number((headers.Status ?? '200').split(' ')[0]);
      delete headers.Status;
      response.writeHead(status, headers);
      response.write(head.subarray(end + 4));
    });
    child.on('close', () => response.end());
  };
  const server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

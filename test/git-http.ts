import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { Processes } from './processes.js';

// Remotes for the import tests (test/jobs.test.ts, test/imports.test.ts): git itself, serving repositories over HTTP.

/** The environment of a test's native git: a fixed identity, no system configuration, never a prompt. */
export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'A',
  GIT_AUTHOR_EMAIL: 'a@example.com',
  GIT_COMMITTER_NAME: 'A',
  GIT_COMMITTER_EMAIL: 'a@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/** `git` on a repository or a working directory, with a fixed identity and dates. */
export function git(args: string[], cwd?: string): string {
  return execFileSync('git', args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
      GIT_AUTHOR_DATE: '2020-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2020-01-01T00:00:00Z',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: tmpdir(),
    },
  }).toString();
}

/**
 * git's smart HTTP server (`git http-backend`, a CGI program) serving the bare repositories under `root`:
 * `/private/...` asks for basic authentication as `users` has it, `/stall/...` never answers, `/held/...`
 * answers its GETs once `release()` is called; a GET under an area that `redirects` names is redirected (302)
 * to the same path and query under the URL it gives. `answered` lists the requests git answered.
 */
export async function gitHttpServer(
  root: string,
  users: Record<string, string>,
  redirects: Record<string, string> = {},
): Promise<{ url: string; answered: string[]; holding(): number; release(): void; close(): Promise<void> }> {
  const processes = new Processes();
  const held: (() => void)[] = [];
  const answered: string[] = [];
  const serve = (request: IncomingMessage, response: ServerResponse, releasing = false) => {
    const url = new URL(request.url!, 'http://localhost');
    const [, area] = url.pathname.split('/');
    if (area === 'stall') return;
    if (Object.hasOwn(redirects, area) && request.method === 'GET') {
      response.writeHead(302, { Location: `${redirects[area]}${url.pathname.slice(area.length + 1)}${url.search}` }).end();
      return;
    }
    if (area === 'held' && request.method === 'GET' && !releasing) return void held.push(() => serve(request, response, true));
    if (area === 'private') {
      const [, user, password] =
        /^([^:]*):(.*)$/s.exec(Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString()) ?? [];
      if (!user || users[user] !== password) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
        return;
      }
    }
    const child = processes.start('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname.slice(area.length + 1),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method,
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: (request.headers['git-protocol'] as string | undefined) ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    if (request.readableEnded) child.stdin.end();
    else request.pipe(child.stdin);
    // The CGI answer: headers (a `Status` among them), a blank line, the body.
    let head = Buffer.alloc(0);
    let headed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headed) return void response.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headed = true;
      const headers = Object.fromEntries(
        head
          .subarray(0, end)
          .toString()
          .split('\r\n')
          .map((line) => line.split(/:\s*/, 2)),
      );
      const status = Number((headers.Status ?? '200').split(' ')[0]);
      delete headers.Status;
      response.writeHead(status, headers);
      response.write(head.subarray(end + 4));
    });
    child.on('close', () => {
      answered.push(`${request.method} ${url.pathname}`);
      response.end();
    });
  };
  const server: Server = createServer((request, response) => serve(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    holding: () => held.length,
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      processes.stopAll();
    },
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

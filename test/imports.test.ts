import { execFileSync } from 'node:child_process';
import dns from 'node:dns';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BadRequestError } from '../src/errors.js';
import { REMOTE_FAILED } from '../src/git/store.js';
import { closedPort, git, gitHttpServer } from './git-http.js';
import { createUser, hasGit, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

// What an import may reach (src/services/projects/import-url.ts at creation, src/git/remote-http.ts when the job
// connects), how local requests are allowed, and what import_error tells of the network: nothing.

const LOCALHOST = 'Requests to localhost are not allowed';
const LOOPBACK = 'Requests to loopback addresses are not allowed';
const LOCAL_NETWORK = 'Requests to the local network are not allowed';
const LINK_LOCAL = 'Requests to the link local network are not allowed';
const SHARED = 'Requests to the shared address space are not allowed';
const BROADCAST = 'Requests to the limited broadcast address are not allowed';
const NON_ROUTABLE = 'Requests to non-routable addresses are not allowed';
const UNRESOLVABLE = 'Host cannot be resolved or invalid';
const PORTS = 'Only allowed ports are 80, 443, and any over 1024';

/** Each form of a URL an import may not reach, and the original's reason. */
const BLOCKED: [string, string][] = [
  ['http://127.0.0.1:5432/app.git', LOCALHOST],
  ['http://[::1]/app.git', LOCALHOST],
  ['http://0x7f000001/app.git', LOCALHOST],
  ['http://2130706433/app.git', LOCALHOST],
  ['http://0177.0.0.1/app.git', LOCALHOST],
  ['http://localhost:8080/app.git', LOCALHOST],
  ['http://0.0.0.0/app.git', LOCALHOST],
  ['http://[::]/app.git', LOCALHOST],
  ['http://[::ffff:127.0.0.1]/app.git', LOCALHOST],
  ['http://127.0.0.2/app.git', LOOPBACK],
  ['http://169.254.169.254/latest/meta-data/', LINK_LOCAL],
  ['http://[fe80::1]/app.git', LINK_LOCAL],
  ['http://10.1.2.3/app.git', LOCAL_NETWORK],
  ['http://172.16.0.1/app.git', LOCAL_NETWORK],
  ['https://192.168.1.1/app.git', LOCAL_NETWORK],
  ['http://[fd12:3456::1]/app.git', LOCAL_NETWORK],
  ['http://[::ffff:10.0.0.1]/app.git', LOCAL_NETWORK],
  // NAT64 and 6to4 addresses reach the IPv4 host they carry.
  ['http://[64:ff9b::a00:1]/app.git', LOCAL_NETWORK],
  ['http://[2002:c0a8:101::1]/app.git', LOCAL_NETWORK],
  ['http://100.64.0.1/app.git', SHARED],
  ['http://255.255.255.255/app.git', BROADCAST],
  ['http://224.0.0.1/app.git', NON_ROUTABLE],
  ['http://240.0.0.1/app.git', NON_ROUTABLE],
  ['http://[ff02::1]/app.git', NON_ROUTABLE],
  ['http://nowhere.invalid/app.git', UNRESOLVABLE],
  ['http://example.com:22/app.git', PORTS],
];

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});
function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), `forgekit-imports-test-${prefix}-`));
  directories.push(directory);
  return directory;
}

/** A directory serving `app.git`: one commit on `main`. */
function servedRepository(): string {
  const work = temporaryDirectory('work');
  git(['init', '-q', '-b', 'main', work]);
  writeFileSync(join(work, 'README.md'), '# Imported\n');
  git(['add', '.'], work);
  git(['commit', '-q', '-m', 'First'], work);
  const served = temporaryDirectory('served');
  git(['clone', '-q', '--bare', work, join(served, 'app.git')]);
  return served;
}

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/**
 * DNS, as the resolver the imports use (node:dns) answers it, with `host` resolving to each of `answers` in turn
 * (the last one again once they run out); other names as the system resolves them. Returns the answers given.
 */
function stubLookup(host: string, answers: string[]): string[] {
  const given: string[] = [];
  const systemLookup = dns.lookup;
  vi.spyOn(dns, 'lookup').mockImplementation(((
    hostname: string,
    options: dns.LookupAllOptions,
    callback: (error: Error | null, addresses: dns.LookupAddress[]) => void,
  ) => {
    if (hostname !== host) return (systemLookup as (...args: unknown[]) => void)(hostname, options, callback);
    const address = answers.length > 1 ? answers.shift()! : answers[0];
    given.push(address);
    process.nextTick(() => callback(null, [{ address, family: 4 }]));
  }) as never);
  return given;
}
afterEach(() => {
  vi.restoreAllMocks();
});

/** A TCP listener that counts the connections it is offered (and answers none). */
async function countingListener(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const server: TcpServer = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;

describe('POST /projects with an import_url that reaches inside', () => {
  let t: TestHosting;
  let user: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await sharedHosting();
    user = await createUser(t.hosting);
  });
  afterAll(() => t?.close());

  it.each(BLOCKED)('refuses %s: %s, through HTTP and in process, making nothing', async (importUrl, reason) => {
    const expected = { import_url: [`is blocked: ${reason}`] };
    const name = uniqueName('blocked');
    const res = await t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', user.token).send({ name, import_url: importUrl });
    expect([res.status, res.body]).toEqual([400, { message: expected }]);
    const forUser = await t.http
      .post(`/api/v4/projects/user/${user.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ name, import_url: importUrl });
    expect([forUser.status, forUser.body]).toEqual([400, { message: expected }]);

    const inProcess = await rejection(t.hosting.as(user.id).projects.create({ name, import_url: importUrl }));
    expect(inProcess).toBeInstanceOf(BadRequestError);
    expect((inProcess as BadRequestError).messages).toEqual(expected);
    const forUserInProcess = await rejection(t.hosting.projects.createForUser(user.id, { name, import_url: importUrl }));
    expect((forUserInProcess as BadRequestError).messages).toEqual(expected);

    const made = await t.http.get('/api/v4/projects').query({ search: name }).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(made.body).toEqual([]);
  });

  it('keeps its other messages: a URL that is not one, a protocol that is not http(s)', async () => {
    const post = (import_url: string) =>
      t.http
        .post('/api/v4/projects')
        .set('PRIVATE-TOKEN', user.token)
        .send({ name: uniqueName('other'), import_url });
    expect((await post('not a url')).body).toEqual({ message: { import_url: ['is not a valid URL'] } });
    expect((await post('file:///etc/passwd')).body).toEqual({
      message: { import_url: ['is blocked: Only allowed protocols are http, https'] },
    });
    expect((await post('ftp://127.0.0.1/app.git')).body).toEqual({
      message: { import_url: ['is blocked: Only allowed protocols are http, https'] },
    });
  });
});

describe.runIf(hasGit)('imports from local addresses, once allowed', () => {
  let t: TestHosting;
  let allowing: TestHosting;
  let user: Awaited<ReturnType<typeof createUser>>;
  let allowingUser: Awaited<ReturnType<typeof createUser>>;
  let server: Awaited<ReturnType<typeof gitHttpServer>>;
  const SETTING = 'allow_local_requests_from_web_hooks_and_services';
  beforeAll(async () => {
    server = await gitHttpServer(
      servedRepository(),
      { bob: 'hunter2' },
      { moved: '/public', away: 'http://127.0.0.1:1', nowhere: 'http://nowhere.invalid' },
    );
    t = await sharedHosting();
    allowing = await sharedHosting({ allowLocalRequests: true });
    user = await createUser(t.hosting);
    allowingUser = await createUser(allowing.hosting);
  });
  afterEach(async () => {
    await t.hosting.applicationSettings.update({ [SETTING]: false });
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
    await allowing?.close();
  });

  /** The project made by `user` on `hosting` importing `importUrl`, once its import is over. */
  async function imported(hosting: TestHosting, importUrl: string) {
    const owner = hosting === t ? user : allowingUser;
    const res = await hosting.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: uniqueName('imported'), import_url: importUrl });
    expect([res.status, res.body.import_status]).toEqual([201, 'scheduled']);
    await hosting.hosting.backgroundJobs.drain();
    return hosting.hosting.as(owner.id).projects.get(res.body.id);
  }

  it('refuses a local server while the setting is off; imports from it once an administrator turns it on', async () => {
    const importUrl = `${server.url}/public/app.git`;
    const refused = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', user.token)
      .send({ name: uniqueName('local'), import_url: importUrl });
    expect([refused.status, refused.body]).toEqual([400, { message: { import_url: [`is blocked: ${LOCALHOST}`] } }]);

    const settings = await t.http
      .put('/api/v4/application/settings')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ [SETTING]: true });
    expect([settings.status, settings.body[SETTING]]).toEqual([200, true]);
    // The instance's option is off: the job allowed the local server because it read the setting.
    const project = await imported(t, importUrl);
    expect([project.import_status, project.import_error, project.default_branch]).toEqual(['finished', null, 'main']);
    expect((await t.hosting.as(user.id).branches.list(project.id)).map((branch) => branch.name)).toEqual(['main']);

    const settingsNow = await t.hosting.applicationSettings.get();
    expect(settingsNow[SETTING]).toBe(true);
    await t.hosting.applicationSettings.update({ [SETTING]: false });
    const again = await rejection(t.hosting.as(user.id).projects.create({ name: uniqueName('local'), import_url: importUrl }));
    expect((again as BadRequestError).messages).toEqual({ import_url: [`is blocked: ${LOCALHOST}`] });
  });

  it('imports from a local server when the instance option allows local requests, the setting off', async () => {
    expect((await allowing.hosting.applicationSettings.get())[SETTING]).toBe(false);
    const project = await imported(allowing, `${server.url.replace('//', '//bob:hunter2@')}/private/app.git`);
    expect([project.import_status, project.import_error, project.default_branch]).toEqual(['finished', null, 'main']);
  });

  it('still refuses what no setting allows: a host that does not resolve, a low port', async () => {
    for (const [importUrl, reason] of [
      ['http://nowhere.invalid/app.git', UNRESOLVABLE],
      ['http://127.0.0.1:22/app.git', PORTS],
    ]) {
      const res = await allowing.http
        .post('/api/v4/projects')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ name: uniqueName('still'), import_url: importUrl });
      expect([res.status, res.body]).toEqual([400, { message: { import_url: [`is blocked: ${reason}`] } }]);
    }
  });

  it("follows a redirect of the remote's first answer to a place it checks as it checks the URL", async () => {
    // Moved on the same server: the whole fetch goes where the redirect led.
    const moved = await imported(allowing, `${server.url}/moved/app.git`);
    expect([moved.import_status, moved.import_error]).toEqual(['finished', null]);
    expect(server.answered).toContain('POST /public/app.git/git-upload-pack');
    // Led to a port the original refuses, to a host that does not resolve: refused before any connection.
    const away = await imported(allowing, `${server.url}/away/app.git`);
    expect([away.import_status, away.import_error]).toEqual(['failed', `The remote redirected to a blocked URL: ${PORTS}`]);
    const nowhere = await imported(allowing, `${server.url}/nowhere/app.git`);
    expect([nowhere.import_status, nowhere.import_error]).toEqual(['failed', `The remote redirected to a blocked URL: ${UNRESOLVABLE}`]);
  });

  it('connects, for the whole import, only to the addresses it checked when it began', async () => {
    const host = 'pinned.forgekit.test';
    // The server's address at creation and when the job begins; then an address nothing listens on.
    const lookups = stubLookup(host, ['127.0.0.1', '127.0.0.1', '127.0.0.3']);
    const project = await imported(allowing, `${server.url.replace('127.0.0.1', host)}/public/app.git`);
    expect([project.import_status, project.import_error]).toEqual(['finished', null]);
    // Two requests (the advertisement, the pack) on the one lookup the job made.
    expect(lookups).toEqual(['127.0.0.1', '127.0.0.1']);
  });

  it(
    'says the same in import_error for a closed port, a live service that is not git, a reset, ' +
      'a missing repository and refused credentials',
    async () => {
      const http: HttpServer = createHttpServer((request, response) => {
        if (request.url?.startsWith('/found')) response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>a web page</html>');
        else response.writeHead(404).end('Not Found');
      });
      const resetting: TcpServer = createTcpServer((socket) => socket.resetAndDestroy());
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
      try {
        const service = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
        const urls = [
          `http://bob:hunter2@127.0.0.1:${await closedPort()}/app.git`,
          `${service}/found/app.git`,
          `${service}/missing/app.git`,
          `http://127.0.0.1:${(resetting.address() as AddressInfo).port}/app.git`,
          `${server.url}/public/none.git`,
          `${server.url.replace('//', '//bob:wrong-hunter2@')}/private/app.git`,
        ];
        for (const importUrl of urls) {
          const project = await imported(allowing, importUrl);
          expect([importUrl, project.import_status, project.import_error]).toEqual([importUrl, 'failed', REMOTE_FAILED]);
        }
      } finally {
        await new Promise((resolve) => http.close(resolve));
        await new Promise((resolve) => resetting.close(resolve));
      }
    },
  );
});

describe('an import whose host resolves elsewhere by the time the job runs (DNS rebinding)', () => {
  let t: TestHosting;
  let user: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await sharedHosting();
    user = await createUser(t.hosting);
  });
  afterAll(() => t?.close());

  it('is checked again when the job connects, and never reaches the local address', async () => {
    const listener = await countingListener();
    const host = 'rebinding.forgekit.test';
    // Public when the project is made, the listener's address when the job resolves it.
    const lookups = stubLookup(host, ['93.184.216.34', '127.0.0.1']);
    try {
      const res = await t.http
        .post('/api/v4/projects')
        .set('PRIVATE-TOKEN', user.token)
        .send({ name: uniqueName('rebinding'), import_url: `http://${host}:${listener.port}/app.git` });
      expect([res.status, res.body.import_status]).toEqual([201, 'scheduled']);
      await t.hosting.backgroundJobs.drain();
      const project = await t.hosting.as(user.id).projects.get(res.body.id);
      expect([project.import_status, project.import_error]).toEqual(['failed', `The import URL is blocked: ${LOCALHOST}`]);
      // Resolved at creation and again by the job, which refused what it found without connecting.
      expect(lookups).toEqual(['93.184.216.34', '127.0.0.1']);
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });
});

/** git's pkt-line: its length in four hex digits, then the payload. */
const pktLine = (payload: string | Buffer) => {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
};

describe.runIf(hasGit)('what an import stores', () => {
  let server: Awaited<ReturnType<typeof gitHttpServer>>;
  let served: string;
  beforeAll(async () => {
    // Branches, an annotated and a lightweight tag, a tag of a tag, HEAD on a branch other than master, and files that
    // change a little in each commit (deltas, chains of them).
    const work = temporaryDirectory('history');
    git(['init', '-q', '-b', 'develop', work]);
    const lines = Array.from({ length: 300 }, (_, index) => `line ${index} of a file that changes a little in each commit`);
    for (let commit = 0; commit < 40; commit++) {
      lines[(commit * 7) % lines.length] = `changed by commit ${commit}`;
      writeFileSync(join(work, 'file.txt'), lines.join('\n'));
      writeFileSync(join(work, `new-${commit % 5}.txt`), `version ${commit}\n`);
      git(['add', '.'], work);
      git(['commit', '-q', '-m', `Commit ${commit}`], work);
      if (commit === 10) git(['branch', 'master'], work);
      if (commit === 20) git(['tag', '-a', 'v1.0', '-m', 'Release 1.0'], work);
    }
    git(['tag', 'light'], work);
    git(['tag', '-a', 'signed-again', '-m', 'A tag of a tag', 'v1.0'], work);
    const root = temporaryDirectory('stores');
    git(['clone', '-q', '--bare', work, join(root, 'app.git')]);
    git(['gc', '-q', '--aggressive'], join(root, 'app.git'));
    served = join(root, 'app.git');
    server = await gitHttpServer(root, {});
  });
  afterAll(() => server?.close());

  it(
    'the pack as the remote sent it with its index (git index-pack’s, ' + 'byte for byte), the references and HEAD as the remote has them',
    async () => {
      const { RepositoryStore } = await import('../src/git/store.js');
      const store = new RepositoryStore({ default: temporaryDirectory('store') });
      await store.importFrom('default', 1, `${server.url}/public/app.git`, { allowLocalRequests: true });
      const gitdir = store.path('default', 1);

      // One pack, named by its checksum, and no loose object.
      const packs = readdirSync(join(gitdir, 'objects', 'pack')).sort();
      expect(packs).toHaveLength(2);
      const [idx, pack] = packs;
      expect(pack).toMatch(/^pack-[0-9a-f]{40}\.pack$/);
      expect(idx).toBe(pack.replace(/\.pack$/, '.idx'));
      expect(
        readFileSync(join(gitdir, 'objects', 'pack', pack))
          .subarray(-20)
          .toString('hex'),
      ).toBe(pack.slice(5, 45));
      expect(git(['--git-dir', gitdir, 'count-objects', '-v'])).toMatch(/^count: 0$/m);
      const theirs = join(temporaryDirectory('theirs'), 'pack.idx');
      git(['index-pack', '-o', theirs, join(gitdir, 'objects', 'pack', pack)]);
      expect(readFileSync(join(gitdir, 'objects', 'pack', idx)).equals(readFileSync(theirs))).toBe(true);

      // Native git reads the same repository: fsck finds nothing, every reference (peeled too), HEAD and commit agree.
      git(['--git-dir', gitdir, 'fsck', '--full', '--strict', '--no-dangling']);
      for (const args of [
        ['show-ref', '-d'],
        ['symbolic-ref', 'HEAD'],
        ['log', '--all', '--format=%H %P %s'],
        ['rev-list', '--objects', '--all'],
      ]) {
        expect(git(['--git-dir', gitdir, ...args])).toBe(git(['--git-dir', served, ...args]));
      }
      expect(git(['--git-dir', gitdir, 'symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/develop');
      expect(readFileSync(join(gitdir, 'config'), 'utf8')).not.toContain('remote');
      // And so does forgekit: the commit-graph written (from the commits the indexer read) as git verifies it, HEAD's
      // history read through it.
      expect(existsSync(join(gitdir, 'objects', 'info', 'commit-graph'))).toBe(true);
      git(['--git-dir', gitdir, 'commit-graph', 'verify']);
      const statistics = await store.statistics('default', 1);
      expect(statistics.commitCount).toBe(40);
      const head = git(['--git-dir', served, 'rev-parse', 'HEAD']).trim();
      expect((await store.open('default', 1).readCommit(head)).message).toBe('Commit 39\n');
      store.forgetAll();
    },
  );

  /** A remote that advertises one branch at `head` and answers the fetch with `answer` (pkt-lines, as it likes). */
  async function fakeRemote(head: string, answer: Buffer): Promise<{ url: string; close(): Promise<void> }> {
    const http: HttpServer = createHttpServer((request, response) => {
      if (request.method === 'GET') {
        const advertisement = Buffer.concat([
          pktLine('# service=git-upload-pack\n'),
          Buffer.from('0000'),
          pktLine(`${head} HEAD\0side-band-64k ofs-delta symref=HEAD:refs/heads/main\n`),
          pktLine(`${head} refs/heads/main\n`),
          Buffer.from('0000'),
        ]);
        response.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-advertisement' }).end(advertisement);
      } else {
        request.resume();
        request.on('end', () => response.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' }).end(answer));
      }
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/app.git`,
      close: () => new Promise((resolve) => http.close(() => resolve())),
    };
  }

  it(
    'refuses a pack it cannot use (thin, damaged, lacking what a reference names) ' + 'and a remote that reports an error, leaving nothing',
    async () => {
      const { RepositoryStore } = await import('../src/git/store.js');
      const store = new RepositoryStore({ default: temporaryDirectory('refusing') });
      const head = git(['--git-dir', served, 'rev-parse', 'HEAD']).trim();
      const packOf = (revs: string, thin: boolean) =>
        execFileSync(
          'git',
          ['--git-dir', served, 'pack-objects', '--revs', '--stdout', '--delta-base-offset', ...(thin ? ['--thin'] : [])],
          {
            input: revs,
          },
        );
      const sideBand = (pack: Buffer) => {
        const lines = [pktLine('NAK\n')];
        for (let at = 0; at < pack.length; at += 65515)
          lines.push(pktLine(Buffer.concat([Buffer.from([1]), pack.subarray(at, at + 65515)])));
        return Buffer.concat([...lines, Buffer.from('0000')]);
      };
      const damaged = Buffer.from(packOf(`${head}\n`, false));
      damaged[damaged.length >> 1] ^= 0xff;
      const cases: [Buffer, string][] = [
        [
          sideBand(packOf(`${head}\n^${head}~1\n`, true)),
          'The repository could not be imported: the remote sent a pack that cannot be used (the pack is thin: ' +
            'it holds deltas against objects it does not hold)',
        ],
        [
          sideBand(damaged),
          'The repository could not be imported: the remote sent a pack that cannot be used ' +
            "(the pack's checksum does not match its content)",
        ],
        [
          sideBand(packOf(`${head}~1\n`, false)),
          'The repository could not be imported: the remote sent a pack that cannot be used (the pack lacks 1 of the objects the ' +
            'references name)',
        ],
        [
          Buffer.concat([
            pktLine('NAK\n'),
            pktLine(Buffer.concat([Buffer.from([3]), Buffer.from('upload-pack: not our ref')])),
            Buffer.from('0000'),
          ]),
          REMOTE_FAILED,
        ],
        [Buffer.from('not git at all'), REMOTE_FAILED],
      ];
      for (const [answer, message] of cases) {
        const remote = await fakeRemote(head, answer);
        try {
          const error = await rejection(store.importFrom('default', 1, remote.url, { allowLocalRequests: true }));
          expect([(error as Error).name, (error as Error).message]).toEqual(['RepositoryImportError', message]);
          expect(existsSync(store.path('default', 1))).toBe(false);
        } finally {
          await remote.close();
        }
      }
    },
  );
});

/**
 * Where repositories live, and what an instance does when its storage lacks one the database names: it says so
 * at start, and answers their reads and writes 503 rather than an empty repository or a new history.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryPath } from '../src/git/fs.js';
import { RepositoryStore } from '../src/git/store.js';
import { BadRequestError, ServiceUnavailableError } from '../src/errors.js';
import { createHostingService, type HostingOptions, type HostingService } from '../src/index.js';
import { freshDatabase, hasGit, migratedDataDir, ROOT_TOKEN } from './helpers.js';

const postgres = process.env.FORGEKIT_TEST_DATABASE_URL;
const directories: string[] = [];
const temporary = (stem: string) => {
  const directory = mkdtempSync(join(tmpdir(), `forgekit-storage-${stem}-`));
  directories.push(directory);
  return directory;
};
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** What a start logged as errors. */
function recordingLogger() {
  const errors: string[] = [];
  return { errors, logger: { info: () => {}, warn: () => {}, error: (message: string) => void errors.push(message) } };
}

/** A database that outlives an instance: a data directory, or (on the PostgreSQL suite) a database of its own on that server. */
async function lastingDatabase(): Promise<{ database: HostingOptions['database']; drop(): Promise<void> }> {
  if (!postgres) return { database: { dataDir: migratedDataDir(temporary('data')) }, drop: async () => {} };
  const fresh = await freshDatabase();
  return { database: { url: fresh.url }, drop: fresh.drop };
}

const http = (hosting: HostingService) => {
  const app = express();
  app.use(hosting.router());
  return request(app);
};

describe('repositories missing from their storage', () => {
  it('are named at start; their reads and writes answer 503 and write nothing; restored, they answer again', async () => {
    const { database, drop } = await lastingDatabase();
    const storage = temporary('repositories');
    try {
      const first = await createHostingService({ database, storage, rootToken: ROOT_TOKEN });
      const project = await first.projects.create({ name: 'kept' });
      await first.repositoryFiles.create(project.id, 'README.md', { branch: 'master', content: '# Kept\n', commit_message: 'Start' });
      const empty = await first.projects.create({ name: 'empty' });
      await first.close();

      // The storage is not mounted (moved away): the database still names both repositories.
      const away = `${storage}-away`;
      directories.push(away);
      renameSync(storage, away);
      const { errors, logger } = recordingLogger();
      const second = await createHostingService({ database, storage, rootToken: ROOT_TOKEN, logger });
      try {
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain('the database names 2 repositories that the storages lack');
        expect(errors[0]).toContain(
          `project ${project.id} (root/kept) in storage default: ${join(storage, RepositoryStore.relativePath(project.id))}`,
        );
        expect(errors[0]).toContain(`project ${empty.id} (root/empty) in storage default`);

        const api = http(second);
        const unavailable = { message: "503 Service Unavailable - the project's repository is missing from its storage" };
        for (const path of [
          'repository/files/README.md?ref=master',
          'repository/commits',
          'repository/branches',
          'repository/tree',
          'repository/tags',
          'repository/archive.tar.gz',
        ]) {
          const res = await api.get(`/api/v4/projects/${project.id}/${path}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
          expect([res.status, res.body], path).toEqual([503, unavailable]);
        }
        const emptyBranches = await api.get(`/api/v4/projects/${empty.id}/repository/branches`).set('PRIVATE-TOKEN', ROOT_TOKEN);
        expect([emptyBranches.status, emptyBranches.body]).toEqual([503, unavailable]);
        // A write starts no new history: nothing is made in the storage.
        const write = await api
          .post(`/api/v4/projects/${project.id}/repository/files/new.txt`)
          .set('PRIVATE-TOKEN', ROOT_TOKEN)
          .send({ branch: 'master', content: 'x', commit_message: 'New' });
        expect([write.status, write.body]).toEqual([503, unavailable]);
        const first = await api
          .post(`/api/v4/projects/${empty.id}/repository/files/new.txt`)
          .set('PRIVATE-TOKEN', ROOT_TOKEN)
          .send({ branch: 'master', content: 'x', commit_message: 'First' });
        expect(first.status).toBe(503);
        await expect(
          second.repositoryFiles.create(project.id, 'b.txt', { branch: 'master', content: 'b', commit_message: 'B' }),
        ).rejects.toBeInstanceOf(ServiceUnavailableError);
        await expect(second.branches.create(project.id, { branch: 'topic', ref: 'master' })).rejects.toBeInstanceOf(
          ServiceUnavailableError,
        );
        expect(existsSync(storage) ? readdirSync(storage, { recursive: true }) : []).toEqual([]);
        // The project itself still answers (its statistics count nothing).
        const shown = await api.get(`/api/v4/projects/${project.id}?statistics=true`).set('PRIVATE-TOKEN', ROOT_TOKEN);
        expect([shown.status, shown.body.default_branch, shown.body.statistics.commit_count]).toEqual([200, 'master', 0]);

        // Mounted again: everything is there.
        rmSync(storage, { recursive: true, force: true });
        renameSync(away, storage);
        const file = await api
          .get(`/api/v4/projects/${project.id}/repository/files/README.md/raw?ref=master`)
          .set('PRIVATE-TOKEN', ROOT_TOKEN);
        expect([file.status, file.text]).toEqual([200, '# Kept\n']);
        expect((await second.commits.list(project.id, { ref_name: 'master' })).map((commit) => commit.title)).toEqual(['Start']);
      } finally {
        await second.close();
      }
    } finally {
      await drop();
    }
  });

  it('in a storage the instance was not given: named at start, 503', async () => {
    const { database, drop } = await lastingDatabase();
    const main = temporary('main');
    const fast = temporary('fast');
    try {
      const first = await createHostingService({ database, storage: { default: main, fast }, rootToken: ROOT_TOKEN });
      await first.applicationSettings.update({ repository_storages: ['fast'] });
      const project = await first.projects.create({ name: 'elsewhere' });
      await first.close();

      const { errors, logger } = recordingLogger();
      const second = await createHostingService({ database, storage: { default: main }, rootToken: ROOT_TOKEN, logger });
      try {
        expect(errors[0]).toContain(`project ${project.id} (root/elsewhere) in storage fast: (no storage fast)`);
        await expect(second.branches.list(project.id, {})).rejects.toBeInstanceOf(ServiceUnavailableError);
        expect((await second.projects.list({ statistics: true })).map((shown) => shown.id)).toContain(project.id);
      } finally {
        await second.close();
      }
    } finally {
      await drop();
    }
  });

  it.runIf(postgres)('with a PostgreSQL database: refused without a storage, before the database is touched', async () => {
    const fresh = await freshDatabase();
    try {
      await expect(createHostingService({ database: { url: fresh.url } })).rejects.toMatchObject({
        constructor: BadRequestError,
        messages: { storage: [expect.stringMatching(/^is required with a PostgreSQL database/)] },
      });
    } finally {
      await fresh.drop();
    }
  });
});

// The repository layer's own behaviour, whichever database: tried in the PGlite suite.
describe.runIf(hasGit && !postgres)('what a crashed writer leaves', () => {
  it('a reference lock file is taken over at once, and a temporary object is one git fsck passes over', async () => {
    const storage = temporary('crash');
    const hosting = await createHostingService({ storage, rootToken: ROOT_TOKEN });
    try {
      const project = await hosting.projects.create({ name: 'crashed' });
      await hosting.repositoryFiles.create(project.id, 'a.txt', { branch: 'master', content: 'a\n', commit_message: 'A' });
      const gitdir = join(storage, RepositoryStore.relativePath(project.id));
      // What a kill -9 between creating the lock and renaming it leaves, and an object cut short while written.
      writeFileSync(join(gitdir, 'refs/heads/master.lock'), '0000000000000000000000000000000000000000\n');
      const [fanout] = readdirSync(join(gitdir, 'objects')).filter((name) => /^[0-9a-f]{2}$/.test(name));
      const cutShort = temporaryPath(join(gitdir, 'objects', fanout, 'f'.repeat(38)));
      writeFileSync(cutShort, 'cut short');

      const started = Date.now();
      const written = await hosting.repositoryFiles.create(project.id, 'b.txt', { branch: 'master', content: 'b\n', commit_message: 'B' });
      expect(written.branch).toBe('master');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(existsSync(join(gitdir, 'refs/heads/master.lock'))).toBe(false);
      // fsck says "bad sha1 file" on its standard error of any other file there.
      const fsck = spawnSync('git', ['--git-dir', gitdir, 'fsck', '--full', '--strict'], { encoding: 'utf8' });
      expect([fsck.status, fsck.stdout, fsck.stderr]).toEqual([0, '', '']);
      expect(execFileSync('git', ['--git-dir', gitdir, 'log', '--format=%s', 'master'], { encoding: 'utf8' })).toBe('B\nA\n');
      // Objects forgekit writes go through such temporary names, none of which is left behind.
      const leftovers = readdirSync(join(gitdir, 'objects'), { recursive: true })
        .map(String)
        .filter((name) => name.includes('tmp_obj_'));
      expect(leftovers).toEqual([relative(join(gitdir, 'objects'), cutShort)]);
    } finally {
      await hosting.close();
    }
  });
});

/** A received pack's index, built by forgekit as `git index-pack` builds it: the same `.idx`, byte for byte. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPack, indexPackInWorker, PackIndexError } from '../src/git/index-pack.js';
import { hasGit } from './helpers.js';
import { GIT_ENV } from './git-http.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-index-pack-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = { ...GIT_ENV, HOME: root };
const git = (cwd: string, args: string[], input?: string | Buffer): Buffer =>
  execFileSync('git', args, { cwd, env, input, maxBuffer: 1 << 28 });

/** A pack written by `git pack-objects` of every object reachable in `work` (`options`: its flags), and git's own index of it. */
function packOf(work: string, name: string, options: string[], revs?: string): { pack: Buffer; path: string } {
  const pack = git(work, ['pack-objects', '--revs', '--stdout', ...(revs ? [] : ['--all']), ...options], revs ?? '');
  const path = join(root, `${name}.pack`);
  writeFileSync(path, pack);
  return { pack, path };
}

/** `git index-pack`'s `.idx` of a pack file. */
function gitIndexOf(path: string): Buffer {
  const out = `${path.slice(0, -5)}.git.idx`;
  git(root, ['index-pack', '-o', out, path]);
  return readFileSync(out);
}

let work: string;
beforeAll(() => {
  if (!hasGit) return;
  work = join(root, 'work');
  git(root, ['init', '-q', '-b', 'main', work]);
  // Files that change a little in each commit: deltas against earlier versions, chains of them.
  const lines = Array.from({ length: 400 }, (_, index) => `line ${index} ${createHash('sha1').update(String(index)).digest('hex')}`);
  for (let commit = 0; commit < 30; commit++) {
    lines[(commit * 37) % lines.length] = `changed in ${commit}`;
    writeFileSync(join(work, 'a.txt'), lines.join('\n'));
    writeFileSync(join(work, 'b.txt'), [...lines].reverse().join('\n') + String(commit % 3));
    writeFileSync(join(work, `new-${commit}.txt`), `file ${commit}\n`);
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', `commit ${commit}`]);
    if (commit % 10 === 0) git(work, ['tag', '-a', `v${commit}`, '-m', `tag ${commit}`]);
  }
});

describe.runIf(hasGit)('indexing a pack', () => {
  it('writes the .idx git index-pack writes, for a pack of offset deltas and one of deltas by ID against objects in the pack', async () => {
    const ofs = packOf(work, 'ofs', ['--delta-base-offset']);
    const ref = packOf(work, 'ref', []);
    for (const { pack, path } of [ofs, ref]) {
      const ours = indexPack(pack);
      const theirs = gitIndexOf(path);
      expect(ours.count).toBe(pack.readUInt32BE(8));
      expect(ours.checksum).toBe(pack.subarray(-20).toString('hex'));
      expect(ours.index.equals(theirs)).toBe(true);
    }
    // Each pack has the kind of delta it is meant to have.
    expect(indexPack(ofs.pack).deltas).toMatchObject({ ofs: expect.any(Number), ref: 0 });
    expect(indexPack(ofs.pack).deltas.ofs).toBeGreaterThan(20);
    // (How many: git's delta search runs in threads, so two packs of the same objects need not have as many.)
    expect(indexPack(ref.pack).deltas).toMatchObject({ ofs: 0, ref: expect.any(Number) });
    expect(indexPack(ref.pack).deltas.ref).toBeGreaterThan(20);

    // In a worker: the same bytes, and the IDs asked for that it lacks.
    const head = git(work, ['rev-parse', 'HEAD']).toString().trim();
    const inWorker = await indexPackInWorker(ofs.path, [head, '0'.repeat(40)]);
    expect(inWorker.index.equals(indexPack(ofs.pack).index)).toBe(true);
    expect(inWorker.missing).toEqual(['0'.repeat(40)]);
  });

  it('refuses a damaged pack, a truncated one, one with bytes after its objects, and a thin one', async () => {
    const { pack } = packOf(work, 'good', ['--delta-base-offset']);
    const withChecksum = (body: Buffer) => Buffer.concat([body, createHash('sha1').update(body).digest()]);

    const flipped = Buffer.from(pack);
    flipped[pack.length >> 1] ^= 0xff;
    expect(() => indexPack(flipped)).toThrow(/checksum/);
    expect(() => indexPack(pack.subarray(0, pack.length - 100))).toThrow();
    // Damaged inside, with a checksum made for it: the damage itself is found.
    const body = Buffer.from(pack.subarray(0, -20));
    body[body.length >> 1] ^= 0xff;
    expect(() => indexPack(withChecksum(body))).toThrow();
    // Cut short, checksum made for it: objects missing.
    expect(() => indexPack(withChecksum(pack.subarray(0, pack.length >> 1)))).toThrow();
    expect(() => indexPack(withChecksum(Buffer.concat([pack.subarray(0, -20), Buffer.from('extra')])))).toThrow(/after its last object/);
    expect(() => indexPack(Buffer.from('not a pack at all, not at all, no'))).toThrow(/not a pack/);

    // A thin pack: the last commit's objects, deltas against the one before it that it does not hold.
    const thin = packOf(work, 'thin', ['--thin'], 'HEAD\n^HEAD~1\n');
    expect(() => indexPack(thin.pack)).toThrow(/thin/);
    const error = await indexPackInWorker(thin.path, []).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PackIndexError);
    expect((error as Error).message).toMatch(/thin/);
  });
});

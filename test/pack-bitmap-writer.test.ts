/**
 * Pack reachability bitmaps written by forgekit (src/git/pack-bitmap-writer.ts) for a pack native git wrote without
 * one: checked by git itself (`rev-list --test-bitmap`, a walk against the bitmap; `--use-bitmap-index`; a clone
 * served from it) and by forgekit's reader (PackBitmap).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePackBitmap } from '../src/git/pack-bitmap-writer.js';
import { setBits, StoredPacks } from '../src/git/pack-writer.js';
import { Repository } from '../src/git/repository.js';
import { GIT_ENV } from './git-http.js';
import { fsck, hasGit } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-pack-bitmap-'));
const env = { ...GIT_ENV, HOME: root };

/** git, without holding the event loop; its output, or its failure with what it printed. */
function git(args: string[], options: { input?: string; gitdir?: string } = {}): Promise<{ stdout: string; stderr: string }> {
  const input = options.input === undefined ? 'ignore' : 'pipe';
  const child = spawn('git', options.gitdir ? ['--git-dir', options.gitdir, ...args] : args, { env, stdio: [input, 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin?.end(options.input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const output = { stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() };
      if (code === 0) resolve(output);
      else reject(new Error(`git ${args.join(' ')} exited with ${code}: ${output.stderr}`));
    });
  });
}
const gitOut = async (gitdir: string, args: string[]) => (await git(args, { gitdir })).stdout.trim();
/** The object IDs `git rev-list --objects ...` lists (paths cut off), sorted. */
const objectsListed = async (gitdir: string, args: string[]) =>
  (await gitOut(gitdir, ['rev-list', '--objects', ...args]))
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(0, 40))
    .sort();

/**
 * A fast-import stream: `main` (240 commits), `feature` (from main's 40th, merged into main twice, then on), `release`
 * (from main's 150th, merging main once); nested directories, a deletion, an executable, a link and a submodule.
 */
function history(): string {
  const out: string[] = [];
  let mark = 0;
  let time = 1_700_000_000;
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const commit = (ref: string, parents: number[], changes: string[]) => {
    mark += 1;
    time += 60;
    out.push(`commit refs/heads/${ref}\nmark :${mark}\ncommitter A <a@example.com> ${time} +0000\n${data(`${ref} ${mark}`)}`);
    if (parents[0]) out.push(`from :${parents[0]}\n`);
    for (const parent of parents.slice(1)) out.push(`merge :${parent}\n`);
    for (const change of changes) out.push(change);
    return mark;
  };
  const edit = (ref: string) => {
    const changes: string[] = [];
    for (let count = 1 + (next() % 2); count > 0; count--) {
      const path = `src/module-${next() % 5}/part-${next() % 4}/file-${next() % 6}.txt`;
      changes.push(`M 100644 inline ${path}\n${data(`${ref} ${mark} ${next()}\n`.repeat(1 + (next() % 20)))}`);
    }
    return changes;
  };
  let main = commit(
    'main',
    [],
    [
      `M 100644 inline README.md\n${data('# Project\n')}`,
      `M 100755 inline bin/run\n${data('#!/bin/sh\necho run\n')}`,
      `M 120000 inline link\n${data('README.md')}`,
      `M 160000 ${'5'.repeat(40)} vendor/library\n`,
      `M 100644 inline old/gone.txt\n${data('soon gone\n')}`,
    ],
  );
  let feature = 0;
  let release = 0;
  for (let step = 1; step < 240; step++) {
    main = commit('main', [main], step === 20 ? ['D old/gone.txt\n'] : edit('main'));
    if (step === 40) feature = main;
    if (step > 40 && step <= 140) feature = commit('feature', [feature], edit('feature'));
    if (step === 100 || step === 200) main = commit('main', [main, feature], edit('main'));
    if (step === 150) release = main;
    if (step > 150 && step <= 210) release = commit('release', step === 180 ? [release, main] : [release], edit('release'));
  }
  out.push('done\n');
  return out.join('');
}

let gitdir: string;
let packPath: string;
let tips: string[];

const bitmapPath = () => packPath.replace(/\.pack$/, '.bitmap');

/** writePackBitmap with a Repository of its own, let go of after. */
async function writeBitmap(bitmapTips: string[], signal?: AbortSignal): Promise<boolean> {
  const repo = new Repository(gitdir);
  try {
    return await writePackBitmap(repo, packPath, bitmapTips, signal);
  } finally {
    repo.release();
  }
}

/** The commits a bitmap file has entries for, and the XOR offset of each (read as gitformat-bitmap lays them out). */
function entriesOf(bytes: Buffer): { commit: string; xorOffset: number }[] {
  const index = readFileSync(packPath.replace(/\.pack$/, '.idx'));
  const skipEwah = (at: number) => at + 8 + bytes.readUInt32BE(at + 4) * 8 + 4;
  let at = 32;
  for (let type = 0; type < 4; type++) at = skipEwah(at);
  const entries: { commit: string; xorOffset: number }[] = [];
  for (let entry = 0; entry < bytes.readUInt32BE(8); entry++) {
    const name = 8 + 256 * 4 + bytes.readUInt32BE(at) * 20;
    entries.push({ commit: index.toString('hex', name, name + 20), xorOffset: bytes[at + 4] });
    at = skipEwah(at + 6);
  }
  expect(at).toBe(bytes.length - 20);
  return entries;
}

describe.runIf(hasGit)('pack bitmap writer', () => {
  beforeAll(async () => {
    gitdir = join(root, 'repository.git');
    await git(['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
    await git(['fast-import', '--quiet', '--done'], { gitdir, input: history() });
    await gitOut(gitdir, ['tag', '-a', '-m', 'version one', 'v1', 'main~200']);
    await gitOut(gitdir, ['tag', 'light', 'feature~3']);
    await gitOut(gitdir, ['tag', '-a', '-m', 'a tag of a tag', 'v1-nested', 'v1']);
    await gitOut(gitdir, ['tag', '-a', '-m', 'a tree', 'tree-tag', 'release^{tree}']);
    await gitOut(gitdir, ['update-ref', 'refs/tags/blob-tag', await gitOut(gitdir, ['rev-parse', 'feature:README.md'])]);
    await gitOut(gitdir, ['update-ref', 'refs/keep/old', 'main~230']);
    // One pack, as `git repack -a -d` leaves it, without the bitmap a bare repository would get.
    await gitOut(gitdir, ['-c', 'repack.writeBitmaps=false', 'repack', '-a', '-d', '-q']);
    const directory = join(gitdir, 'objects', 'pack');
    for (const name of readdirSync(directory)) if (name.endsWith('.bitmap')) rmSync(join(directory, name));
    const packs = readdirSync(directory).filter((name) => name.endsWith('.pack'));
    expect(packs).toHaveLength(1);
    packPath = join(directory, packs[0]);
    tips = (await gitOut(gitdir, ['for-each-ref', '--format=%(objectname)'])).split('\n');
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("writes a bitmap git verifies against its own walk, and forgekit's reader takes", async () => {
    expect(await writeBitmap(tips)).toBe(true);
    const bytes = readFileSync(bitmapPath());
    expect(bytes.toString('latin1', 0, 4)).toBe('BITM');
    expect(createHash('sha1').update(bytes.subarray(0, -20)).digest().equals(bytes.subarray(-20))).toBe(true);
    const entries = entriesOf(bytes);
    // Every commit of the 100 newest, and some further back; most XORed with an earlier entry.
    expect(entries.length).toBeGreaterThan(100);
    expect(entries.filter((entry) => entry.xorOffset > 0).length).toBeGreaterThan(entries.length / 2);

    const spaced = [0, 1, 2, 3].map((quarter) => entries[Math.floor((quarter * entries.length) / 4)].commit);
    for (const tip of ['main', 'feature', 'release', 'light', 'v1^{commit}', 'v1-nested^{commit}', 'refs/keep/old', ...spaced]) {
      const { stderr } = await git(['rev-list', '--test-bitmap', tip], { gitdir });
      expect(stderr).toContain('OK!');
    }
    const walked = await objectsListed(gitdir, ['--all']);
    expect(await objectsListed(gitdir, ['--all', '--use-bitmap-index'])).toEqual(walked);
    expect(await gitOut(gitdir, ['rev-list', '--count', '--objects', '--all', '--use-bitmap-index'])).toBe(String(walked.length));

    const stored = await StoredPacks.open(gitdir);
    try {
      const bitmap = await stored.bitmap();
      expect(bitmap).not.toBeNull();
      for (const tip of ['main', 'feature', 'release', 'v1^{commit}', 'refs/keep/old']) {
        const bits = bitmap!.reachableFrom(await gitOut(gitdir, ['rev-parse', tip]));
        expect(bits).toBeDefined();
        const read = [...setBits(bits!)].map((bit) => bitmap!.oidOf(bit)).sort();
        expect(read).toEqual(await objectsListed(gitdir, [tip]));
      }
    } finally {
      await stored.close();
    }

    expect(await gitOut(gitdir, ['count-objects', '-v'])).toMatch(/^count: 0$[\s\S]*^garbage: 0$/m);
    expect(fsck(gitdir)).toBe('0 ');
    const clone = join(root, 'clone.git');
    await git(['-c', 'pack.useBitmaps=true', 'clone', '--quiet', '--bare', `file://${gitdir}`, clone]);
    expect(await objectsListed(clone, ['--all'])).toEqual(await objectsListed(gitdir, ['--branches', '--tags']));
    expect(fsck(clone)).toBe('0 ');
  });

  it('writes the same bytes when the commits are read from a commit-graph', async () => {
    const before = readFileSync(bitmapPath());
    await gitOut(gitdir, ['commit-graph', 'write', '--reachable']);
    try {
      expect(await writeBitmap(tips)).toBe(true);
      expect(readFileSync(bitmapPath()).equals(before)).toBe(true);
    } finally {
      rmSync(join(gitdir, 'objects', 'info', 'commit-graph'));
    }
  });

  it('writes nothing when a tip reaches an object the pack does not hold, or once stopped', async () => {
    rmSync(bitmapPath());
    const loose = await gitOut(gitdir, ['commit-tree', '-p', 'main', '-m', 'loose only', 'main^{tree}']);
    expect(await writeBitmap([...tips, loose])).toBe(false);
    await expect(writeBitmap(tips, AbortSignal.abort())).rejects.toThrow();
    expect(existsSync(bitmapPath())).toBe(false);
    expect(readdirSync(join(gitdir, 'objects', 'pack')).filter((name) => name.startsWith('tmp_'))).toEqual([]);
  });
});

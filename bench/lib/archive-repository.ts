/**
 * A repository of a given size made mostly of incompressible files, for archives under load
 * (bench/archives.ts, test/stall.test.ts): written into an existing bare repository by `git fast-import`, then
 * `git gc`, as a server's housekeeping would leave it (one pack). About two thirds of the bytes are random
 * files of 64 KiB to 4 MiB in a few directories; the rest text files, which the second commit changes a line of
 * (so that the pack holds deltas), an executable script and a symbolic link.
 */
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';

/** A small deterministic generator (mulberry32): the same sizes and lines on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fills the bare repository at `gitdir` with about `bytes` of files on `branch`; resolves to its head commit. */
export async function writeArchiveRepository(gitdir: string, bytes: number, branch = 'master'): Promise<string> {
  const rnd = random(70);
  const importer = spawn('git', ['--git-dir', gitdir, 'fast-import', '--quiet'], { stdio: ['pipe', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => importer.on('close', resolve));
  const write = (data: string | Buffer) =>
    importer.stdin.write(data) ? Promise.resolve() : new Promise<void>((resolve) => importer.stdin.once('drain', resolve));
  let mark = 0;
  const blob = async (content: Buffer) => {
    mark += 1;
    await write(`blob\nmark :${mark}\ndata ${content.length}\n`);
    await write(content);
    await write('\n');
    return mark;
  };
  const files: { path: string; mark: number; mode: string }[] = [];
  let written = 0;
  for (let index = 0; written < (bytes * 2) / 3; index++) {
    const size = Math.floor(64 * 1024 + rnd() * 4 * 1024 * 1024);
    files.push({
      path: `assets/${['images', 'fonts', 'media', 'data'][index % 4]}/blob-${index}.bin`,
      mark: await blob(randomBytes(size)),
      mode: '100644',
    });
    written += size;
  }
  const texts: { path: string; lines: string[] }[] = [];
  for (let index = 0; written < bytes; index++) {
    const lines = Array.from(
      { length: 2000 + Math.floor(rnd() * 20_000) },
      (_, line) => `${index}:${line} ${Math.floor(rnd() * 1e9).toString(36)} lorem ipsum dolor sit amet`,
    );
    texts.push({ path: `src/${['core', 'api', 'ui'][index % 3]}/module-${index}.txt`, lines });
    written += lines.join('\n').length + 1;
  }
  const commit = async (message: string, time: number, changes: { path: string; mark: number; mode: string }[]) => {
    const lines = changes.map((file) => `M ${file.mode} :${file.mark} ${file.path}`);
    await write(
      `commit refs/heads/${branch}\ncommitter Ada <ada@example.com> ${time} +0000\ndata ${message.length}\n${message}\n` +
        `${lines.join('\n')}\n\n`,
    );
  };
  const textFiles = async (edit: boolean) => {
    const made: { path: string; mark: number; mode: string }[] = [];
    for (const text of texts) {
      const lines = edit
        ? text.lines.map((line, index) => (index === Math.floor(text.lines.length / 2) ? `${line} (edited)` : line))
        : text.lines;
      made.push({ path: text.path, mark: await blob(Buffer.from(`${lines.join('\n')}\n`)), mode: '100644' });
    }
    return made;
  };
  const script = await blob(Buffer.from('#!/bin/sh\necho archive\n'));
  const link = await blob(Buffer.from('src/core'));
  await commit('Files\n', 1_700_000_000, [
    ...files,
    ...(await textFiles(false)),
    { path: 'bin/run', mark: script, mode: '100755' },
    { path: 'core', mark: link, mode: '120000' },
  ]);
  await commit('Edit a line of every text file\n', 1_700_003_600, await textFiles(true));
  importer.stdin.end();
  if ((await exited) !== 0) throw new Error('git fast-import failed');
  const gc = spawnSync('git', ['--git-dir', gitdir, 'gc', '--quiet'], { stdio: 'inherit' });
  if (gc.status !== 0) throw new Error('git gc failed');
  return spawnSync('git', ['--git-dir', gitdir, 'rev-parse', branch], { encoding: 'utf8' }).stdout.trim();
}

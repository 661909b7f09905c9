/**
 * A bare repository with a long history for bench/repositories.ts, bench/history.ts and bench/mixed-load.ts,
 * written by native git (`git fast-import`, then `git gc` as a server's housekeeping would leave it: one pack,
 * deltas, a commit-graph; `aggressive`: `git gc --aggressive`, deeper delta chains searched harder, as git leaves a
 * repository it was asked to pack tightly). Deterministic: a seeded generator picks every change, so two runs get
 * the same commits (their IDs too).
 *
 * About 290 files in directories; each commit changes one to three of them. Some change often
 * (`src/core/engine.ts` in about one commit in seven, `CHANGELOG.md`), most now and then (the more the lower
 * their rank), and `README.md` and `LICENSE` only in the first commit. Every 50 commits a topic branch leaves
 * the main line, gets three commits while the main line gets two, and is merged back with a merge commit.
 * Committer dates rise an hour a commit.
 */
import { spawn, spawnSync } from 'node:child_process';

/** The file changed most often, and one changed only by the first commit. */
export const HOT_FILE = 'src/core/engine.ts';
export const COLD_FILE = 'README.md';

const AUTHORS = [
  'Ada Lovelace',
  'Alan Turing',
  'Barbara Liskov',
  'Donald Knuth',
  'Edsger Dijkstra',
  'Frances Allen',
  'Grace Hopper',
  'Ken Thompson',
  'Leslie Lamport',
  'Margaret Hamilton',
  'Niklaus Wirth',
  'Radia Perlman',
];
const MODULES = [
  'core',
  'api',
  'auth',
  'cache',
  'cli',
  'config',
  'db',
  'events',
  'http',
  'jobs',
  'mail',
  'search',
  'storage',
  'ui',
  'users',
  'util',
];
const START = Date.UTC(2024, 0, 1) / 1000;

/** A small deterministic generator (mulberry32): the same history on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every file's path, the often-changed first: the rank that sets how often a file changes. */
function filePaths(): string[] {
  const names = ['index', 'model', 'service', 'routes', 'store', 'errors', 'types', 'format', 'parse', 'limits', 'events', 'helpers'];
  const sources = MODULES.flatMap((module) => Array.from({ length: 12 }, (_, index) => `src/${module}/${names[index]}.ts`));
  const tests = MODULES.flatMap((module) =>
    Array.from({ length: 4 }, (_, index) => `test/${module}/${['unit', 'api', 'store', 'edge'][index]}.test.ts`),
  );
  const docs = Array.from(
    { length: 24 },
    (_, index) => `docs/${MODULES[index % MODULES.length]}${index < MODULES.length ? '' : '-guide'}.md`,
  );
  return [HOT_FILE, 'CHANGELOG.md', ...sources.filter((path) => path !== HOT_FILE), ...tests, ...docs, 'package.json', '.gitignore'];
}

const FIRST_ONLY = [COLD_FILE, 'LICENSE'];

function line(rnd: () => number, path: string, n: number): string {
  const words = ['value', 'result', 'options', 'entry', 'count', 'limit', 'state', 'buffer', 'record', 'handler'];
  const word = () => words[Math.floor(rnd() * words.length)];
  return path.endsWith('.md')
    ? `The ${word()} of ${path} keeps its ${word()} (${n}).`
    : `  const ${word()}${n} = ${word()}.${word()}(${Math.floor(rnd() * 1000)});`;
}

/** A file's first lines: 40 to 160 of them, a few kilobytes. */
function initial(rnd: () => number, path: string): string[] {
  const count = 40 + Math.floor(rnd() * 120);
  return Array.from({ length: count }, (_, index) => line(rnd, path, index));
}

/** One change: a line rewritten, sometimes one added; CHANGELOG.md gets a line on top. */
function change(rnd: () => number, path: string, lines: string[], commit: number): string[] {
  const next = [...lines];
  if (path === 'CHANGELOG.md') {
    next.splice(0, 0, `- Change ${commit}: ${line(rnd, path, commit)}`);
    return next.slice(0, 400);
  }
  next[Math.floor(rnd() * next.length)] = line(rnd, path, commit);
  if (rnd() < 0.3) next.splice(Math.floor(rnd() * next.length), 0, line(rnd, path, commit));
  return next;
}

/**
 * Writes `commits` commits (merges included) on `main` into a new bare repository at `gitdir`, packs it (with
 * `git gc --aggressive` when `aggressive`), and returns how long that took.
 */
export async function writeHistoryRepository(
  gitdir: string,
  commits: number,
  options: { aggressive?: boolean } = {},
): Promise<{ seconds: number; packBytes: number }> {
  const started = performance.now();
  run('git', ['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
  const importer = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: gitdir, stdio: ['pipe', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => importer.on('close', resolve));
  const rnd = random(8);
  const paths = filePaths();
  // How often each file changes, after the two hot ones: about 1/(rank+1).
  const weights = paths.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const pick = () => {
    let at = rnd() * total;
    for (let rank = 0; rank < paths.length; rank++) if ((at -= weights[rank]) <= 0) return paths[rank];
    return paths[paths.length - 1];
  };

  let chunks: string[] = [];
  let size = 0;
  const write = async (text: string) => {
    chunks.push(text);
    size += text.length;
    if (size < 1 << 20) return;
    const ok = importer.stdin.write(chunks.join(''));
    chunks = [];
    size = 0;
    if (!ok) await new Promise((resolve) => importer.stdin.once('drain', resolve));
  };
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;

  let mark = 0;
  let made = 0;
  /** One commit on `ref` changing `files` (path to lines), after `from` (a mark), merging `merge`; its mark. */
  const commit = async (ref: string, files: Map<string, string[]>, message: string, from: number | null, merge?: number) => {
    mark += 1;
    made += 1;
    const when = START + made * 3600;
    const author = AUTHORS[Math.floor(rnd() * AUTHORS.length)];
    const email = `${author.split(' ')[0].toLowerCase()}@example.com`;
    let text =
      `commit ${ref}\nmark :${mark}\nauthor ${author} <${email}> ${when - 600} +0100\ncommitter ${author} <${email}> ${when} ` +
      `+0100\n${data(message)}`;
    if (from !== null) text += `from :${from}\n`;
    if (merge !== undefined) text += `merge :${merge}\n`;
    for (const [path, lines] of files) text += `M 100644 inline ${path}\n${data(`${lines.join('\n')}\n`)}`;
    await write(text);
    return mark;
  };

  // The first commit: every file.
  const main = new Map<string, string[]>();
  for (const path of [...FIRST_ONLY, ...paths])
    main.set(path, path === 'LICENSE' ? ['MIT License', '', 'Copyright (c) 2024 The Authors'] : initial(rnd, path));
  let tip = await commit('refs/heads/main', new Map(main), 'Initial commit', null);

  /** A commit on a line of work (`state`, changed in place): one to three files. */
  const work = async (ref: string, state: Map<string, string[]>, from: number) => {
    const changed = new Map<string, string[]>();
    const count = 1 + Math.floor(rnd() * rnd() * 3);
    for (let index = 0; index < count; index++) {
      const path = pick();
      changed.set(path, change(rnd, path, changed.get(path) ?? state.get(path)!, made + 1));
    }
    for (const [path, lines] of changed) state.set(path, lines);
    const subject =
      `${['Fix', 'Add', 'Update', 'Refactor', 'Document', 'Speed up'][Math.floor(rnd() * 6)]} ` + `${[...changed.keys()].join(', ')}`;
    return commit(ref, changed, `${subject}\n\nChange ${made + 1}, in ${changed.size} file(s).\n`, from);
  };

  while (made < commits) {
    if (made % 50 === 49 && commits - made >= 6) {
      // A topic branch: three commits beside two on main, then merged: six commits.
      const topic = new Map(main);
      const forkedAt = tip;
      tip = await work('refs/heads/main', main, tip);
      let topicTip = await work('refs/heads/topic', topic, forkedAt);
      tip = await work('refs/heads/main', main, tip);
      topicTip = await work('refs/heads/topic', topic, topicTip);
      topicTip = await work('refs/heads/topic', topic, topicTip);
      // The merge's tree: main's, with the topic's version of every file the topic changed.
      const merged = new Map<string, string[]>();
      for (const [path, lines] of topic) if (lines !== main.get(path)) merged.set(path, lines);
      for (const [path, lines] of merged) main.set(path, lines);
      tip = await commit('refs/heads/main', merged, `Merge branch 'topic-${made}' into main\n`, tip, topicTip);
    } else {
      tip = await work('refs/heads/main', main, tip);
    }
  }
  await write('done\n');
  importer.stdin.end(chunks.join(''));
  const status = await exited;
  if (status !== 0) throw new Error(`git fast-import exited with ${status}`);
  run('git', ['update-ref', '-d', 'refs/heads/topic'], gitdir);
  // What a server's housekeeping leaves: one pack with deltas, packed references, a commit-graph.
  run('git', ['gc', '--quiet', '--prune=now', ...(options.aggressive ? ['--aggressive'] : [])], gitdir);
  const pack = run('git', ['count-objects', '-v'], gitdir);
  const packBytes = Number(/size-pack: (\d+)/.exec(pack)![1]) * 1024;
  return { seconds: (performance.now() - started) / 1000, packBytes };
}

function run(command: string, args: string[], cwd?: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr || result.status}`);
  return result.stdout;
}

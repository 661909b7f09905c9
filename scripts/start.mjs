// `npm start`: the `forgekit` command from this checkout, built first only when the build is missing or older
// than its sources. The command runs in this process, and package.json starts it with `exec`, so that the signals
// npm passes on to its script (Ctrl-C, SIGTERM) reach the server rather than the shell between them.
import './check-node.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/cli.js`;
const sources = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsup.config.ts'];

/** The newest modification time under `path`. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(`${path}/${name}`)));
}

if (!existsSync(cli) || Math.max(...sources.map((source) => newest(`${root}${source}`))) > statSync(cli).mtimeMs) {
  console.log('forgekit: building (dist/ is missing or older than the sources)');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
process.argv[1] = cli;
await import(cli);

// Builds forgekit when dist/ is missing or older than its sources: `npm start`, `npm run bench` and the test files
// that run the built package (test/setup.ts) build it first, and skip the build when it is current. Run directly,
// it does just that.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const sources = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsup.config.ts'];
const built = `${root}dist/cli.js`;

/** The newest modification time under `path` (a directory's own counts: a file deleted from it changes it). */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(`${path}/${name}`)));
}

export function buildIfStale() {
  if (existsSync(built) && Math.max(...sources.map((source) => newest(`${root}${source}`))) <= statSync(built).mtimeMs) return;
  console.log('forgekit: building (dist/ is missing or older than the sources)');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) buildIfStale();

// `npm run bench`: every bench/*.ts in name order, each in its own process, after building forgekit when dist/
// is missing or older than its sources (the benchmarks import the built package, as its users do).
import '../scripts/check-node.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/index.js`;
const sources = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsup.config.ts'];

/** The newest modification time under `path` (as scripts/start.mjs decides whether to build). */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(`${path}/${name}`)));
}

if (!existsSync(built) || Math.max(...sources.map((source) => newest(`${root}${source}`))) > statSync(built).mtimeMs) {
  console.log('bench: building (dist/ is missing or older than the sources)');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
for (const file of readdirSync(`${root}bench`).filter((name) => name.endsWith('.ts')).sort()) {
  console.log(`\n== bench/${file}`);
  const run = spawnSync(process.execPath, [`${root}bench/${file}`], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

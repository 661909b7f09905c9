// `npm run bench`: every bench/*.ts in name order, each in its own process, after building forgekit when dist/
// is missing or older than its sources (the benchmarks import the built package, as its users do).
import '../scripts/check-node.mjs';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { buildIfStale, root } from '../scripts/build-if-stale.mjs';

buildIfStale();
for (const file of readdirSync(`${root}bench`).filter((name) => name.endsWith('.ts')).sort()) {
  console.log(`\n== bench/${file}`);
  const run = spawnSync(process.execPath, ['--import', `${root}bench/lib/source-hooks.mjs`, `${root}bench/${file}`], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

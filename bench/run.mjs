// `npm run bench`: every bench/*.ts in name order, each in its own process, after building forgekit when dist/
// is missing or older than its sources (the benchmarks import the built package, as its users do).
// `npm run bench -- history mixed-load`: the parts named (bench/<name>.ts), in name order.
import '../scripts/check-node.mjs';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { buildIfStale, root } from '../scripts/build-if-stale.mjs';

const parts = readdirSync(`${root}bench`)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.slice(0, -3))
  .sort();
const named = process.argv.slice(2).map((name) => name.replace(/^bench\//, '').replace(/\.ts$/, ''));
const unknown = named.filter((name) => !parts.includes(name));
if (unknown.length) {
  console.error(`No such benchmark: ${unknown.join(', ')}. The parts: ${parts.join(', ')}.`);
  process.exit(2);
}
buildIfStale();
for (const part of named.length ? parts.filter((name) => named.includes(name)) : parts) {
  console.log(`\n== bench/${part}.ts`);
  const run = spawnSync(process.execPath, ['--import', `${root}bench/lib/source-hooks.mjs`, `${root}bench/${part}.ts`], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

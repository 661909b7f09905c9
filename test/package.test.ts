import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { migratedDataDir } from './helpers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** A process run to its end blocks the file past any test timeout: one that hangs is killed after a minute (and fails its test). */
const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 }).trim();

// Node.js processes that each open a database, and a type-check: slow on a busy machine, where 30 s fails tests that work.
// The package opens its embedded database whatever FORGEKIT_TEST_DATABASE_URL says: tried in the PGlite suite only.
describe.skipIf(Boolean(process.env.FORGEKIT_TEST_DATABASE_URL))('the built package', { timeout: 120_000 }, () => {
  it('loads as ESM and as CommonJS, with the same exports', () => {
    // On a copy of the run's migrated data directory: an in-memory instance would first make the migrated database.
    const dataDir = migratedDataDir();
    try {
      const script =
        `const h = await m.createHostingService({ database: { dataDir: ${JSON.stringify(dataDir)} } }); ` +
        `console.log((await h.users.current()).username, typeof m.schemas.UserFull, typeof m.BadRequestError); await h.close();`;
      expect(run(['--input-type=module', '-e', `import * as m from 'forgekit'; ${script}`])).toBe('root object function');
      expect(run(['-e', `const m = require('forgekit'); (async () => { ${script} })();`])).toBe('root object function');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('declares its types and a forgekit bin', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.bin.forgekit).toBe('./dist/cli.js');
    expect(readFileSync(new URL('../dist/cli.js', import.meta.url), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    const declarations = readFileSync(new URL('../dist/index.d.ts', import.meta.url), 'utf8');
    expect(declarations).toContain('declare function createHostingService');
    // The published types describe the API, not the database behind it, and have no `any`.
    expect(declarations).not.toMatch(/mikro-orm/);
    expect(declarations.replace(/\/\*\*[\s\S]*?\*\//g, '')).not.toMatch(/[:<,(|]\s*any\b|\bany\[\]/);
  });

  it('compiles in a CommonJS TypeScript consumer, against index.d.cts', () => {
    // Inside the package, so that `forgekit` resolves to this package itself, as `require` would find it.
    const consumer = mkdtempSync(join(root, '.consumer-'));
    try {
      writeFileSync(
        join(consumer, 'consumer.cts'),
        `import { createHostingService, type UserFull } from 'forgekit';
const username = (user: UserFull): string => user.username;
// @ts-expect-error: the types are real, not any
const wrong: number = ({} as UserFull).username;
export = { createHostingService, username, wrong };
`,
      );
      // Diagnostics of the consumer and of the declarations it compiles against (not of every library: slow).
      const modes: [ts.ModuleKind, ts.ModuleResolutionKind][] = [
        [ts.ModuleKind.Node16, ts.ModuleResolutionKind.Node16],
        [ts.ModuleKind.NodeNext, ts.ModuleResolutionKind.NodeNext],
      ];
      for (const [module, moduleResolution] of modes) {
        const program = ts.createProgram([join(consumer, 'consumer.cts')], {
          strict: true,
          noEmit: true,
          module,
          moduleResolution,
          types: ['node'],
        });
        const checked = [join(consumer, 'consumer.cts'), join(root, 'dist/index.d.cts')].map((file) => program.getSourceFile(file));
        expect(checked.every(Boolean)).toBe(true);
        const problems = checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]);
        expect(problems.map((problem) => ts.flattenDiagnosticMessageText(problem.messageText, '\n'))).toEqual([]);
      }
    } finally {
      rmSync(consumer, { recursive: true, force: true });
    }
  });

  it('builds before it is packed, and says in one line when Node.js is too old', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.scripts.prepack).toBe('npm run build');
    expect(manifest.engines.node).toBe('>=22.18.0');
    expect(manifest.scripts.test.startsWith('node scripts/check-node.mjs && ')).toBe(true);
    // The check as `npm test` and `npm start` run it, beside a manifest that asks for a Node.js from the future.
    const project = mkdtempSync(join(tmpdir(), 'forgekit-engines-'));
    try {
      mkdirSync(join(project, 'scripts'));
      copyFileSync(join(root, 'scripts/check-node.mjs'), join(project, 'scripts/check-node.mjs'));
      writeFileSync(join(project, 'package.json'), JSON.stringify({ engines: { node: '>=99.1.0' } }));
      const old = spawnSync(process.execPath, [join(project, 'scripts/check-node.mjs')], { encoding: 'utf8' });
      expect([old.status, old.stdout, old.stderr]).toEqual([
        1,
        '',
        `forgekit needs Node.js 99.1.0 or newer; this is ${process.versions.node} (${process.execPath}).\n`,
      ]);
      expect(spawnSync(process.execPath, [join(root, 'scripts/check-node.mjs')]).status).toBe(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

/**
 * Where code goes, so that what comes next copies it: each aggregate's hand-written statements in its store
 * (`*-store.ts`) beside the conditions its lists take, services holding the rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The folders of src/services whose aggregates keep their statements in stores. */
const STORED = ['services/projects', 'services/repository', 'services/work-items'];

describe('the services', () => {
  it('write no statement outside their aggregates’ stores', () => {
    const STATEMENT = /\b(queryRows|readRows)\(|\bsql`/;
    const offenders: string[] = [];
    for (const folder of STORED) {
      const dir = join(root, 'src', folder);
      for (const name of readdirSync(dir)) {
        if (!name.endsWith('.ts') || name.endsWith('-store.ts')) continue;
        readFileSync(join(dir, name), 'utf8')
          .split('\n')
          .forEach((line, index) => {
            if (STATEMENT.test(line)) offenders.push(`${relative(root, join(dir, name))}:${index + 1}: ${line.trim()}`);
          });
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('the modules', () => {
  it('declare every schema of src/schemas (the published types list them by file: scripts/types.mjs)', async () => {
    const { MODULE_SCHEMAS } = await import('../src/api/modules.js');
    const declared = new Set<unknown>(Object.values(MODULE_SCHEMAS));
    const missing: string[] = [];
    for (const file of readdirSync(join(root, 'src/schemas')).filter((name) => name.endsWith('.ts'))) {
      const exports = (await import(/* @vite-ignore */ pathToFileURL(join(root, 'src/schemas', file)).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exports)) {
        const schema = typeof value === 'object' && value !== null && '~kind' in value;
        if (schema && !declared.has(value)) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

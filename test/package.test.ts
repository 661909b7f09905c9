import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim();

describe('the built package', () => {
  it('loads as ESM and as CommonJS, with the same exports', () => {
    const script = `const h = await m.createHostingService(); console.log((await h.users.current()).username, typeof m.schemas.UserFull, typeof m.BadRequestError); await h.close();`;
    expect(run(['--input-type=module', '-e', `import * as m from 'forgekit'; ${script}`])).toBe('root object function');
    expect(run(['-e', `const m = require('forgekit'); (async () => { ${script} })();`])).toBe('root object function');
  });

  it('declares its types and a forgekit bin', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.bin.forgekit).toBe('./dist/cli.js');
    expect(readFileSync(new URL('../dist/cli.js', import.meta.url), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    const declarations = readFileSync(new URL('../dist/index.d.ts', import.meta.url), 'utf8');
    expect(declarations).toContain('declare function createHostingService');
    // The published types describe the API, not the database behind it, and have no `any`.
    expect(declarations).not.toMatch(/mikro-orm/);
    expect(declarations.replace(/\/\*\*[^]*?\*\//g, '')).not.toMatch(/[:<,(|]\s*any\b|\bany\[\]/);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import { openApiDocument } from '../src/api/index.js';

const coverage = readFileSync(new URL('../docs/endpoints.md', import.meta.url), 'utf8');

/** `METHOD /path` for each table row of docs/endpoints.md, with its status when the table has one. */
function rows(): { endpoint: string; status?: string }[] {
  const result: { endpoint: string; status?: string }[] = [];
  for (const line of coverage.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const methodIndex = cells.findIndex((cell) => /^(GET|POST|PUT|DELETE)$/.test(cell));
    if (methodIndex < 0) continue;
    // `...` abbreviates /projects/:id/merge_requests, as the specification writes it.
    const path = cells[methodIndex + 1]
      .replace(/`/g, '')
      .replace(/\?.*$/, '')
      .replace(/^\.\.\./, '/projects/:id/merge_requests');
    const status = cells[methodIndex + 2];
    result.push({ endpoint: `${cells[methodIndex]} ${path}`, status: status === 'done' || status === 'not yet' ? status : undefined });
  }
  return result;
}

describe('docs/endpoints.md', () => {
  const table = new Set(allRoutes().map(({ route }) => `${route.method} ${route.path}`));
  const documented = rows();

  it('marks done exactly the specification endpoints the route table serves', () => {
    for (const { endpoint, status } of documented.filter((row) => row.status)) {
      expect(`${endpoint}: ${status}`).toBe(`${endpoint}: ${table.has(endpoint) ? 'done' : 'not yet'}`);
    }
  });

  it('lists every route of the table', () => {
    const listed = new Set(documented.map((row) => row.endpoint));
    for (const endpoint of table) expect(listed.has(endpoint), endpoint).toBe(true);
  });
});

describe('docs/openapi.json', () => {
  it('is the document the route table generates (run `npm run build` after changing routes)', () => {
    const committed = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(openApiDocument());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(openApiDocument('https://forge.example.com'));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });
});

describe('README.md and docs/', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];

  it('link only files that are in the repository, and cite no document that is not', () => {
    for (const page of pages) {
      const text = readFileSync(join(root, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        expect(existsSync(join(root, dirname(page), target)), `${page} links ${target}`).toBe(true);
      }
      expect(text, page).not.toMatch(/\b(SPEC|DESIGN|DEVELOPERS)\.md\b/);
    }
  });
});

import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import { openApiDocument } from '../src/api/openapi.js';

const coverage = readFileSync(new URL('../docs/endpoints.md', import.meta.url), 'utf8');

/** `METHOD /path` for each table row of docs/endpoints.md, with its status when the table has one. */
function rows(): { endpoint: string; status?: string }[] {
  const result: { endpoint: string; status?: string }[] = [];
  for (const line of coverage.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const methodIndex = cells.findIndex((cell) => /^(GET|POST|PUT|DELETE)$/.test(cell));
    if (methodIndex < 0) continue;
    const path = cells[methodIndex + 1].replace(/`/g, '').replace(/\?.*$/, '');
    const status = cells[methodIndex + 2];
    result.push({ endpoint: `${cells[methodIndex]} ${path}`, status: status === 'done' || status === 'not yet' ? status : undefined });
  }
  return result;
}

describe('docs/endpoints.md', () => {
  const table = new Set(allRoutes().map(({ route }) => `${route.method} ${route.path}`));
  const documented = rows();

  it('marks done exactly the SPEC.md endpoints the route table serves', () => {
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

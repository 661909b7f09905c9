import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import puppeteer, { type Browser } from 'puppeteer-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/api/index.js';
import { ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

/** Debian's chromium (CI installs it: .ci/run); the browser test is skipped where there is none. */
const CHROMIUM = '/usr/bin/chromium';

const committed = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8')) as {
  tags: { name: string }[];
};
const committedTags = committed.tags.map((tag) => tag.name);

let t: SharedHosting;
/** A host app: the router with the reference at its root, and again under /git. */
let host: express.Express;

beforeAll(async () => {
  t = await sharedHosting();
  host = express();
  host.use('/git', t.hosting.router({ apiReference: true }));
  host.use(t.hosting.router({ apiReference: true }));
});
afterAll(() => t.close());

async function listening(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A GET of `path` exactly as written (no client normalises `..` or percent-escapes on the way). */
function rawGet(url: string, path: string): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = httpRequest({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  png: 'image/png',
};

describe('the API reference at /api/v4/docs', () => {
  it('is not served by a router not asked for it: the same 404 as any unknown API path', async () => {
    const unknown = await t.http.get('/api/v4/no-such-path');
    expect(unknown.status).toBe(404);
    for (const path of ['/api/v4/docs', '/api/v4/docs/', '/api/v4/docs/swagger-ui-bundle.js', '/api/v4/docs/openapi.json']) {
      const res = await t.http.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toBe(unknown.headers['content-type']);
      expect(res.body, path).toEqual(unknown.body);
    }
  });

  it('serves the page, with or without a final slash, and every asset it names with its type', async () => {
    for (const page of ['/api/v4/docs', '/api/v4/docs/', '/api/v4/docs/index.html', '/git/api/v4/docs', '/git/api/v4/docs/']) {
      const res = await request(host).get(page);
      expect(res.status, page).toBe(200);
      expect(res.headers['content-type'], page).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control'], page).toBe('no-cache');
      expect(res.headers['content-security-policy'], page).toContain("connect-src 'self'");
      expect(res.headers['x-content-type-options'], page).toBe('nosniff');
      expect(res.text).toContain('<div id="swagger-ui"></div>');
      const links = [...res.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => new URL(match[1], `http://forge.test${page}`));
      expect(links.map((link) => link.pathname.split('/').pop()).sort(), page).toEqual([
        'favicon-16x16.png',
        'favicon-32x32.png',
        'index.css',
        'init.js',
        'openapi.json',
        'swagger-ui-bundle.js',
        'swagger-ui.css',
      ]);
      for (const link of links) {
        const asset = await request(host).get(link.pathname);
        expect(asset.status, link.pathname).toBe(200);
        // Under the page's own prefix: /api/v4/docs/..., or /git/api/v4/docs/...
        expect(link.pathname.startsWith(`${page.startsWith('/git') ? '/git' : ''}/api/v4/docs/`), link.pathname).toBe(true);
        const extension = link.pathname.split('.').pop() ?? '';
        if (extension === 'json') {
          expect(asset.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(asset.headers['cache-control']).toBe('no-cache');
          continue;
        }
        expect(asset.headers['content-type'], link.pathname).toBe(TYPES[extension]);
        expect(asset.headers['cache-control'], link.pathname).toBe('public, max-age=86400');
        expect(asset.headers['x-content-type-options'], link.pathname).toBe('nosniff');
        if (extension === 'png') expect((asset.body as Buffer).subarray(1, 4).toString()).toBe('PNG');
      }
    }
    const bundle = await request(host).get('/api/v4/docs/swagger-ui-bundle.js');
    expect(bundle.text).toContain('SwaggerUIBundle');
    // Compressed for a client that takes it (supertest decompresses it again).
    expect(bundle.headers['content-encoding']).toBe('gzip');
    expect((await request(host).get('/api/v4/docs/swagger-ui.css').set('Accept-Encoding', 'identity')).headers['content-encoding']).toBe(
      undefined,
    );
  });

  it('answers HEAD, and 304 to a client that has the asset', async () => {
    const head = await request(host).head('/api/v4/docs/swagger-ui.css');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/css; charset=utf-8');
    const first = await request(host).get('/api/v4/docs/swagger-ui.css');
    expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
    const again = await request(host).get('/api/v4/docs/swagger-ui.css').set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
  });

  it('serves the OpenAPI document with every tag, its server this instance as the router is mounted', async () => {
    const inProcess = openApiDocument();
    for (const [prefix, server] of [
      ['', '/'],
      ['/git', '/git'],
    ]) {
      const res = await request(host).get(`${prefix}/api/v4/docs/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.body.servers).toEqual([{ url: server }]);
      expect(res.body.tags.map((tag: { name: string }) => tag.name)).toEqual(committedTags);
      expect(Object.keys(res.body.paths)).toEqual(Object.keys(inProcess.paths as object));
      // A path of the document, under its server, is this instance's: /api/v4/version under /git is /git/api/v4/version.
      expect(res.body.paths['/api/v4/version'].get.operationId).toBe('instance.version');
      const version = await request(host)
        .get(`${server.replace(/\/$/, '')}/api/v4/version`)
        .set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect(version.status).toBe(200);
    }
  });

  it('names the configured base URL’s path as its server', async () => {
    const configured = await sharedHosting({ baseUrl: 'https://forge.example.com/forge/' });
    try {
      const app = express().use(configured.hosting.router({ apiReference: true }));
      const res = await request(app).get('/api/v4/docs/openapi.json');
      expect(res.body.servers).toEqual([{ url: '/forge' }]);
    } finally {
      await configured.close();
    }
  });

  it('serves no other file of the package, and nothing beside it', async () => {
    const { server, url } = await listening(host);
    try {
      const unknown = await rawGet(url, '/api/v4/no-such-path');
      for (const path of [
        '/api/v4/docs/../../../package.json',
        '/api/v4/docs/..%2f..%2f..%2fpackage.json',
        '/api/v4/docs/%2e%2e/%2e%2e/%2e%2e/package.json',
        '/api/v4/docs/..%5c..%5cpackage.json',
        '/api/v4/docs//etc/passwd',
        '/api/v4/docs/package.json',
        '/api/v4/docs/index.js',
        '/api/v4/docs/swagger-initializer.js',
        '/api/v4/docs/swagger-ui-bundle.js/',
        '/api/v4/docs/__proto__',
        '/api/v4/docs/constructor',
        '/git/api/v4/docs/../../../../package.json',
      ]) {
        const res = await rawGet(url, path);
        expect(res.status, path).toBe(404);
        expect(res.type, path).toBe(unknown.type);
        expect(res.body, path).toBe(unknown.body);
      }
      expect((await request(host).post('/api/v4/docs')).status).toBe(404);
    } finally {
      server.close();
    }
  });
});

/** The little of a browser the functions run in the page use (this compilation has no DOM types). */
interface InPageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): InPageElement | null;
}
interface InPage {
  innerHeight: number;
  scrollY: number;
  scrollTo(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): void;
  document: {
    documentElement: { scrollHeight: number };
    querySelector(selector: string): InPageElement | null;
    querySelectorAll(selector: string): Iterable<InPageElement>;
  };
}

/**
 * In the page: scrolls it from the top to the end, a view at a time, and tells the tag of each tag heading shown on
 * the way (Swagger UI renders only what is near the view).
 */
async function tagsScrolledThrough(): Promise<string[]> {
  const view = globalThis as unknown as InPage;
  const seen = new Set<string>();
  const rendered = () => new Promise<void>((resolve) => view.requestAnimationFrame(() => view.requestAnimationFrame(resolve)));
  for (let y = 0; y < 1_000_000; y += view.innerHeight) {
    view.scrollTo(0, y);
    await rendered();
    for (const heading of view.document.querySelectorAll('.opblock-tag[data-tag]')) seen.add(heading.getAttribute('data-tag') ?? '');
    if (y + view.innerHeight >= view.document.documentElement.scrollHeight) break;
  }
  return [...seen];
}

/** In the page: scrolls, from where it is to the end and then from the top, until `selector` matches. */
async function scrolledTo(selector: string): Promise<boolean> {
  const view = globalThis as unknown as InPage;
  const rendered = () => new Promise<void>((resolve) => view.requestAnimationFrame(() => view.requestAnimationFrame(resolve)));
  const start = view.scrollY;
  for (let y = start, wrapped = false; !wrapped || y < start; y += view.innerHeight) {
    if (!wrapped && y >= view.document.documentElement.scrollHeight) [y, wrapped] = [0, true];
    view.scrollTo(0, y);
    await rendered();
    if (view.document.querySelector(selector)) return true;
  }
  return false;
}

/** In the page: the field of the Authorize dialog for the security scheme `scheme`. */
function authorizationField(scheme: string): InPageElement | undefined {
  const containers = (globalThis as unknown as InPage).document.querySelectorAll('.auth-container');
  return (
    [...containers].find((container) => container.querySelector('h4 code')?.textContent === scheme)?.querySelector('input') ?? undefined
  );
}

describe('the API reference in a browser', () => {
  // Swagger UI resolves the whole document as it starts, and an operation as it is opened: seconds each on a busy machine.
  it.runIf(existsSync(CHROMIUM))('lists every tag, and "Try it out" calls this instance', { timeout: 90_000 }, async () => {
    // As a host app mounts it, under a prefix: the document's server is the prefix, on the page's origin.
    const app = express().use('/forge', t.hosting.router({ apiReference: true }));
    const { server, url } = await listening(app);
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
      });
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 1200 });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(String(error)));
      page.on('requestfailed', (failed) => problems.push(`${failed.url()}: ${failed.failure()?.errorText}`));
      page.setDefaultTimeout(30_000);
      await page.goto(`${url}/forge/api/v4/docs`);

      // Authorize with a private token, as a reader would: the PRIVATE-TOKEN header's field of the dialog.
      await page.waitForSelector('.opblock-tag[data-tag]');
      await page.click('.auth-wrapper .authorize');
      const field = await page.waitForFunction(authorizationField, {}, 'privateToken');
      await field.asElement()!.type(ROOT_TOKEN);
      await page.click('.auth-btn-wrapper .authorize');
      await page.waitForSelector('.auth-btn-wrapper .btn-done');
      await page.click('.auth-btn-wrapper .btn-done');
      await page.waitForSelector('.modal-ux', { hidden: true });

      // Every tag of the document is listed (Swagger UI renders only the operations near the view: scrolled through).
      const tags = await page.evaluate(tagsScrolledThrough);
      expect([...tags].sort()).toEqual([...committedTags].sort());

      // GET /version: open it, "Try it out", "Execute".
      const operation = '.opblock-get:has(.opblock-summary-path[data-path="/api/v4/version"])';
      expect(await page.evaluate(scrolledTo, operation)).toBe(true);
      await page.click(`${operation} .opblock-summary-control`);
      await page.waitForSelector(`${operation} .try-out__btn`);
      await page.click(`${operation} .try-out__btn`);
      await page.waitForSelector(`${operation} .execute`);
      await page.click(`${operation} .execute`);
      const status = await page.waitForSelector(`${operation} .live-responses-table tr.response .response-col_status`);
      expect(await status!.evaluate((element) => element.textContent?.trim())).toBe('200');
      const requestUrl = await page.$eval(`${operation} .request-url pre`, (element) => element.textContent?.trim());
      expect(requestUrl).toBe(`${url}/forge/api/v4/version`);
      const body = await page.$eval(
        `${operation} .live-responses-table tr.response .response-col_description .highlight-code pre`,
        (element) => element.textContent,
      );
      const expected = await request(app).get('/forge/api/v4/version').set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect(JSON.parse(body ?? '')).toEqual(expected.body);
      expect(expected.body.version).toEqual(expect.any(String));
      expect(problems).toEqual([]);
    } finally {
      await browser?.close();
      server.close();
    }
  });
});

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Request, Response } from 'express';
import { openApiDocument } from '../api/index.js';
import { describeFailure } from '../logger.js';
import type { Environment } from '../services/context.js';
import { sendJson } from './json.js';

/**
 * The interactive API reference: Swagger UI (the `swagger-ui-dist` package, served from the package itself) over
 * the OpenAPI document of the route table, at `/api/v4/docs`. Its "Try it out" calls this same instance: the
 * document it is given names the router's own base as its server.
 *
 * What it serves under `/api/v4/docs/`: the page (`/api/v4/docs`, `/api/v4/docs/`, `/api/v4/docs/index.html`),
 * `init.js` (which starts Swagger UI), `openapi.json`, and the few files of the package below, by name: nothing else
 * of the package, nor anything beside it, is reachable.
 */

const CSS = 'text/css; charset=utf-8';
const JAVASCRIPT = 'text/javascript; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The files of swagger-ui-dist served, with their types. */
const PACKAGE_FILES = new Map<string, string>([
  ['swagger-ui.css', CSS],
  ['swagger-ui.css.map', JSON_TYPE],
  ['index.css', CSS],
  ['swagger-ui-bundle.js', JAVASCRIPT],
  ['swagger-ui-bundle.js.map', JSON_TYPE],
  ['swagger-ui-bundle.js.LICENSE.txt', 'text/plain; charset=utf-8'],
  ['favicon-16x16.png', 'image/png'],
  ['favicon-32x32.png', 'image/png'],
]);

/** The page: revalidated on each visit (it names the assets); the assets may be kept a day, then revalidated. */
const PAGE_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=86400';

/**
 * What the page may load and call: its own scripts and styles (Swagger UI sets inline styles), images it makes from
 * responses, and calls to this origin only (the document's server is a path on it).
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** Starts Swagger UI on the document beside this script, whatever the page's URL (with or without a final `/`). */
const INIT_SCRIPT = `'use strict';
(function () {
  var here = document.currentScript.src;
  window.addEventListener('load', function () {
    window.ui = SwaggerUIBundle({
      url: new URL('openapi.json', here).href,
      dom_id: '#swagger-ui',
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
      validatorUrl: null,
      displayRequestDuration: true,
    });
  });
})();
`;

/** The page, its assets named relative to it: `docs/...` from `/api/v4/docs`, `./...` from `/api/v4/docs/`. */
const page = (prefix: string): string => `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>forgekit API reference</title>
    <link rel="stylesheet" href="${prefix}swagger-ui.css">
    <link rel="stylesheet" href="${prefix}index.css">
    <link rel="icon" type="image/png" href="${prefix}favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${prefix}favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <noscript>The API reference needs JavaScript; the OpenAPI document is at <a href="${prefix}openapi.json">openapi.json</a>.</noscript>
    <script src="${prefix}swagger-ui-bundle.js" charset="utf-8"></script>
    <script src="${prefix}init.js" charset="utf-8"></script>
  </body>
</html>
`;

/** A body as sent: its bytes, gzipped too when that is worth it, and a strong validator. */
interface Asset {
  body: Buffer;
  gzipped?: Buffer;
  etag: string;
}

const gzipAsync = promisify(gzip);

async function asset(body: Buffer, compress: boolean): Promise<Asset> {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag, gzipped: compress && body.length > 1024 ? await gzipAsync(body) : undefined };
}

/** The package's directory, found as Node.js resolves the package. */
let packageDirectory: string | undefined;
function swaggerUiDirectory(): string {
  if (packageDirectory === undefined) {
    const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    packageDirectory = dirname(require.resolve('swagger-ui-dist/package.json'));
  }
  return packageDirectory;
}

/** The package's files, read once per process. */
const packageAssets = new Map<string, Promise<Asset>>();
function packageAsset(name: string, type: string): Promise<Asset> {
  let found = packageAssets.get(name);
  if (!found) {
    found = readFile(join(swaggerUiDirectory(), name)).then((body) => asset(body, type !== 'image/png'));
    // A failed read is tried again next time.
    found.catch(() => packageAssets.delete(name));
    packageAssets.set(name, found);
  }
  return found;
}

/** The document with each server it names, at most this many (a router mounted at a path with parameters has many). */
const KEPT_DOCUMENTS = 16;

function send(req: Request, res: Response, type: string, cacheControl: string, { body, gzipped, etag }: Asset): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('ETag', etag);
  if (gzipped) res.setHeader('Vary', 'Accept-Encoding');
  if (req.fresh) {
    res.statusCode = 304;
    return void res.end();
  }
  const compressed = gzipped !== undefined && req.acceptsEncodings('gzip') === 'gzip';
  if (compressed) res.setHeader('Content-Encoding', 'gzip');
  const sent = compressed ? gzipped : body;
  res.statusCode = 200;
  res.setHeader('Content-Length', sent.length);
  res.end(req.method === 'HEAD' ? undefined : sent);
}

/**
 * The reference's handler for one router: answers `path` (relative to `/api/v4`) and tells true when it is one of
 * the reference's, false otherwise (the API's 404 follows).
 */
export function apiReference(env: Environment): (req: Request, res: Response, path: string) => boolean {
  let document: Record<string, unknown> | undefined;
  const documents = new Map<string, Promise<Asset>>();
  const pages = new Map<string, Promise<Asset>>();
  const init = asset(Buffer.from(INIT_SCRIPT), false);

  /**
   * The document, its server the router's own base as a path on the page's origin: where the router is mounted, or
   * the path of the configured base URL (the public address of the mount, behind a proxy that may rewrite paths).
   */
  const openApi = (req: Request): Promise<Asset> => {
    const base = (env.baseUrl ? new URL(env.baseUrl).pathname : req.baseUrl).replace(/\/+$/, '') || '/';
    let found = documents.get(base);
    if (!found) {
      document ??= openApiDocument();
      found = asset(Buffer.from(JSON.stringify({ ...document, servers: [{ url: base }] })), true);
      if (documents.size < KEPT_DOCUMENTS) documents.set(base, found);
    }
    return found;
  };

  /** `name`: the file under `/api/v4/docs/`; undefined for `/api/v4/docs` itself. */
  const answer = (req: Request, res: Response, name: string | undefined): Promise<void> | undefined => {
    if (name === undefined || name === '' || name === 'index.html') {
      const prefix = name === undefined ? 'docs/' : './';
      let found = pages.get(prefix);
      if (!found) pages.set(prefix, (found = asset(Buffer.from(page(prefix)), false)));
      return found.then((body) => {
        res.setHeader('Content-Security-Policy', PAGE_POLICY);
        res.setHeader('Referrer-Policy', 'no-referrer');
        send(req, res, 'text/html; charset=utf-8', PAGE_CACHE, body);
      });
    }
    if (name === 'init.js') return init.then((body) => send(req, res, JAVASCRIPT, ASSET_CACHE, body));
    if (name === 'openapi.json') return openApi(req).then((body) => send(req, res, JSON_TYPE, PAGE_CACHE, body));
    const type = PACKAGE_FILES.get(name);
    if (type) return packageAsset(name, type).then((body) => send(req, res, type, ASSET_CACHE, body));
    return undefined;
  };

  return (req, res, path) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path !== '/docs' && !path.startsWith('/docs/')) return false;
    const answered = answer(req, res, path === '/docs' ? undefined : path.slice('/docs/'.length));
    if (!answered) return false;
    answered.catch((error: unknown) => {
      env.logger.error(`forgekit: unexpected failure in GET /api/v4${path}`, describeFailure(error));
      if (!res.headersSent) sendJson(res, 500, { message: '500 Internal Server Error' });
    });
    return true;
  };
}

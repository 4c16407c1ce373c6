import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NotFoundError, type RouteDescriptor } from '@crudsmith/core';

// Swagger UI from the installed swagger-ui-dist, never a CDN. Only these files are served;
// its own index.html and swagger-initializer.js are not (that initializer loads an outside
// petstore document): each version's page has its own initializer.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

// The package's folder, found through Node's resolution as any import would be.
const DIST = (): string => dirname(require.resolve('swagger-ui-dist/package.json'));

/** The unversioned route serving Swagger UI's files, read once from the installed package. */
export function docsAssetRoute(path: string): RouteDescriptor {
  const cache = new Map<string, Buffer>();
  return {
    method: 'GET',
    path: `${path}/:file`,
    operation: 'versioning_docs_asset',
    dependencies: [],
    async handler(req) {
      const type = Object.hasOwn(ASSETS, req.params.file) ? ASSETS[req.params.file] : undefined;
      if (!type) throw new NotFoundError('Not Found');
      let bytes = cache.get(req.params.file);
      if (!bytes) cache.set(req.params.file, (bytes = readFileSync(join(DIST(), req.params.file))));
      return {
        status: 200,
        headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
        body: bytes,
      };
    },
  };
}

/**
 * The docs page's Content-Security-Policy: scripts, styles, images and requests from this
 * origin only (no inline script: the initializer is a file of its own; inline styles, which
 * Swagger UI sets on elements, and data: images, which its stylesheet uses), and no other
 * site may frame it (`frame-ancestors`, and X-Frame-Options for older browsers).
 */
const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'Content-Security-Policy': DOCS_PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** What one version's docs page needs: where it lives and where the shared files are. */
export interface DocsPage {
  label: string;
  /** The version's path, such as `/api/v1`. */
  versionPath: string;
  /** The shared files' path relative to the version's (`../docs-assets`). */
  assets: string;
  title: string;
}

/** The version's page (`{versionPath}/docs`) and its initializer script. */
export function docsPageRoutes(page: DocsPage): RouteDescriptor[] {
  const html = pageHtml(page);
  // Relative to the page (`/api/v1/docs`), so it also works under an adapter's own prefix.
  // validatorUrl null: otherwise the page asks an outside validator about the document.
  const script = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
  });
};
`;
  const text =
    (type: string, body: string, extra: Record<string, string> = {}) =>
    async () => ({
      status: 200,
      headers: { 'Content-Type': type, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', ...extra },
      body,
    });
  return [
    {
      method: 'GET',
      path: `${page.versionPath}/docs`,
      operation: `versioning_${page.label}_docs`,
      dependencies: [],
      handler: text('text/html; charset=utf-8', html, PAGE_HEADERS),
    },
    {
      method: 'GET',
      path: `${page.versionPath}/docs/swagger-initializer.js`,
      operation: `versioning_${page.label}_docs_initializer`,
      dependencies: [],
      handler: text('text/javascript; charset=utf-8', script),
    },
  ];
}

function pageHtml(page: DocsPage): string {
  const title = page.title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>${title}</title>
    <link rel="stylesheet" type="text/css" href="${page.assets}/swagger-ui.css">
    <link rel="stylesheet" type="text/css" href="${page.assets}/index.css">
    <link rel="icon" type="image/png" href="${page.assets}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${page.assets}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${page.assets}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="docs/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;
}

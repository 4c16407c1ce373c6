import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteDescriptor } from '@crudsmith/core';

interface Asset {
  bytes: Buffer;
  type: string;
  etag: string;
}

// Only these files are served, from installed package files: htmx from htmx.org, the
// stylesheet and the small script from this package. Nothing comes from another host.
const SOURCES: Record<string, { path: () => string; type: string }> = {
  'htmx.min.js': { path: () => require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'admin.css': { path: () => join(__dirname, 'assets', 'admin.css'), type: 'text/css; charset=utf-8' },
  'admin.js': { path: () => join(__dirname, 'assets', 'admin.js'), type: 'text/javascript; charset=utf-8' },
  'scheme.js': { path: () => join(__dirname, 'assets', 'scheme.js'), type: 'text/javascript; charset=utf-8' },
};

/** The admin's static files, read once; each with a strong ETag of its content. */
export class Assets {
  private readonly loaded = new Map<string, Asset>();

  get(file: string): Asset | undefined {
    if (!Object.hasOwn(SOURCES, file)) return undefined;
    let asset = this.loaded.get(file);
    if (!asset) {
      const bytes = readFileSync(SOURCES[file].path());
      asset = {
        bytes,
        type: SOURCES[file].type,
        etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`,
      };
      this.loaded.set(file, asset);
    }
    return asset;
  }

  /** The URL of a file under `base`, versioned by its ETag, so it can be cached for a year. */
  url(base: string, file: string): string {
    return `${base}/static/${file}?v=${this.get(file)!.etag.slice(1, 9)}`;
  }

  /** `GET {mount}/static/:file`: long-lived caching, ETag and 304 on If-None-Match. */
  route(mount: string): RouteDescriptor {
    return {
      method: 'GET',
      path: `${mount}/static/:file`,
      operation: 'admin_static',
      dependencies: [],
      handler: async (req) => {
        const asset = this.get(req.params.file);
        const headers = { 'X-Content-Type-Options': 'nosniff' };
        if (!asset)
          return {
            status: 404,
            headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' },
            body: 'Not Found',
          };
        const cache = { ETag: asset.etag, 'Cache-Control': 'public, max-age=31536000, immutable' };
        const tags = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
        if (tags.includes(asset.etag)) return { status: 304, headers: { ...headers, ...cache } };
        return { status: 200, headers: { ...headers, ...cache, 'Content-Type': asset.type }, body: asset.bytes };
      },
    };
  }
}

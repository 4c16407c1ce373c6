import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootstrap,
  ConfigurationError,
  RateLimitError,
  type NeutralRequest,
  type Plugin,
  type RouteDescriptor,
} from '@crudsmith/core';
import {
  buildOpenApiDocument,
  deprecationHeaders,
  parseDeprecation,
  versioning,
  type VersioningOptions,
} from '@crudsmith/versioning';
import { route, type AdapterHarness, type MountedServer } from '../../adapters/conformance';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { expectValidOpenApi } from './openapi-check';

const echoPath = (req: NeutralRequest) => ({ status: 200, json: { path: req.path, params: req.params } });

function things(): RouteDescriptor[] {
  return [
    {
      ...route('GET /things/:id', echoPath),
      operation: 'things_read',
      doc: { operationId: 'things_read', responses: { '200': { description: 'A thing', schema: { type: 'object' } } } },
    },
    route('GET /things', () => ({ status: 200, headers: { Link: '</api/v1/things?page=2>; rel="next"' }, json: [] })),
    route('GET /limited', () => ({ status: 200, json: 'never' })),
  ];
}

const options = (): VersioningOptions => ({
  prefix: '/api',
  versions: [
    { label: 'v1', routers: [things()], deprecated: { message: 'Use v2', sunset: '2030-01-31', since: '2026-11-01' } },
    { label: 'v2', routers: [things()] },
  ],
});

// A limiter-like plugin: records the path every before hook sees, and answers 429 early.
function recorder(seen: string[]): Plugin {
  return {
    name: 'recorder',
    hooks: {
      before(_req, r) {
        seen.push(r.path);
        if (r.path.endsWith('/limited')) throw new RateLimitError('Too many requests', { retryAfter: 7 });
      },
    },
  };
}

// The plugin alone (no example app), on every adapter: mounting, headers on every answer of
// a deprecated version (early answers and fallbacks too), discovery, the JSON 404s.
describe.each<AdapterHarness>([koaHarness, expressHarness, fastifyHarness])('versioning() on $name', (harness) => {
  let server: MountedServer;
  const seen: string[] = [];
  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  beforeAll(async () => {
    const app = bootstrap({ plugins: [versioning(options()), recorder(seen)] });
    server = await harness.mount(app.routes, { fallbacks: app.fallbacks, logger: { error: () => undefined } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves each version under its prefix, and hooks see the full path', async () => {
    expect(await (await get('/api/v1/things/7')).json()).toEqual({ path: '/api/v1/things/7', params: { id: '7' } });
    expect(await (await get('/api/v2/things/8')).json()).toEqual({ path: '/api/v2/things/8', params: { id: '8' } });
    expect(seen).toEqual(expect.arrayContaining(['/api/v1/things/:id', '/api/v2/things/:id']));
    expect((await get('/things/1')).status).toBe(404);
  });

  it('sends the RFC headers with deprecation and sunset dates, keeping a Link the route set', async () => {
    const res = await get('/api/v1/things');
    expect(res.headers.get('x-api-deprecation')).toBe('Use v2');
    expect(res.headers.get('x-api-sunset')).toBe('2030-01-31');
    expect(res.headers.get('sunset')).toBe('Thu, 31 Jan 2030 00:00:00 GMT');
    expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 10, 1) / 1000}`);
    const link = res.headers.get('link')!;
    expect(link).toContain('</api/v1/things?page=2>; rel="next"');
    expect(link).toContain('</api/v1/docs>; rel="deprecation"; type="text/html"');
    expect(link).toContain('</api/v1/docs>; rel="sunset"; type="text/html"');
    const current = await get('/api/v2/things');
    expect(current.headers.get('link')).toBe('</api/v1/things?page=2>; rel="next"');
    expect(current.headers.get('deprecation')).toBeNull();
  });

  it('marks answers a hook gave early (a 429) and HEAD answers', async () => {
    const limited = await get('/api/v1/limited');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-api-sunset')).toBe('2030-01-31');
    expect((await get('/api/v2/limited')).headers.get('x-api-sunset')).toBeNull();
    const head = await get('/api/v1/things/1', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('sunset')).toBe('Thu, 31 Jan 2030 00:00:00 GMT');
  });

  it('answers unmatched paths under a version with a JSON 404 carrying its headers', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/things/1/more', '/api/v1', '/api/v1/']) {
      const res = await get(path, { method: 'POST' });
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual({ detail: 'Not Found' });
      expect(res.headers.get('x-api-deprecation'), path).toBe('Use v2');
    }
    const current = await get('/api/v2/nothing');
    expect(current.status).toBe(404);
    expect(current.headers.get('x-api-deprecation')).toBeNull();
  });

  it("answers a deprecated version's known paths with another method 405 (OPTIONS 200) with Allow and its headers", async () => {
    const other = await get('/api/v1/things/1', { method: 'DELETE' });
    expect(other.status).toBe(405);
    expect(await other.json()).toEqual({ detail: 'Method Not Allowed' });
    expect(other.headers.get('allow')).toBe('GET, HEAD');
    expect(other.headers.get('x-api-deprecation')).toBe('Use v2');
    const options = await get('/api/v1/things', { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('GET, HEAD');
    expect(options.headers.get('sunset')).toBe('Thu, 31 Jan 2030 00:00:00 GMT');
    const docs = await get('/api/v1/openapi.json', { method: 'POST' });
    expect(docs.status).toBe(405);
    expect(docs.headers.get('x-api-sunset')).toBe('2030-01-31');
    const current = await get('/api/v2/things/1', { method: 'DELETE' });
    expect(current.status).toBe(405);
    expect(current.headers.get('allow')).toContain('GET');
    expect(current.headers.get('x-api-deprecation')).toBeNull();
  });

  it('answers an unknown version with a 404 that names it and the available ones', async () => {
    const res = await get('/api/v3/things/1');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Unknown API version v3; available: v1, v2' });
    expect(res.headers.get('x-api-sunset')).toBeNull();
    expect((await get('/api/V1/things/1')).status).toBe(404);
  });

  it('lists the versions', async () => {
    expect(await (await get('/api/versions')).json()).toEqual({
      available_versions: ['v1', 'v2'],
      current_version: 'v2',
      deprecated_versions: ['v1'],
      sunset_dates: { v1: '2030-01-31' },
    });
  });

  it('serves a valid OpenAPI document per version and the Swagger UI files, nothing else from the package', async () => {
    for (const version of ['v1', 'v2']) {
      const doc: any = await (await get(`/api/${version}/openapi.json`)).json();
      await expectValidOpenApi(doc);
      expect(Object.keys(doc.paths).sort()).toEqual([
        `/api/${version}/limited`,
        `/api/${version}/things`,
        `/api/${version}/things/{id}`,
      ]);
      expect(doc.paths[`/api/${version}/things/{id}`].get.parameters).toEqual([
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      ]);
      const page = await get(`/api/${version}/docs`);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // A strict policy the page still works under (the Chromium suite renders it), and no framing by another site.
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp.split('; ')).toEqual(
        expect.arrayContaining([
          "default-src 'none'",
          "script-src 'self'",
          "frame-ancestors 'none'",
          "base-uri 'none'",
        ]),
      );
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(await page.text()).not.toMatch(/https?:\/\//);
      const script = await (await get(`/api/${version}/docs/swagger-initializer.js`)).text();
      expect(script).toContain('validatorUrl: null');
      expect(script).not.toContain('petstore');
    }
    const bundle = await get('/api/docs-assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    for (const file of ['swagger-initializer.js', 'index.html', 'package.json', '..%2Fpackage.json']) {
      expect((await get(`/api/docs-assets/${file}`)).status, file).toBe(404);
    }
  });
});

describe('versioning() at startup', () => {
  it('refuses bad dates, messages, labels and a current version that does not exist', () => {
    const bad = (change: (o: VersioningOptions) => void) => {
      const o = options();
      change(o);
      return () => versioning(o);
    };
    expect(bad((o) => (o.versions[0].deprecated!.sunset = '31/01/2030'))).toThrow(ConfigurationError);
    expect(bad((o) => (o.versions[0].deprecated!.sunset = '2030-02-31x'))).toThrow(ConfigurationError);
    expect(bad((o) => (o.versions[0].deprecated!.since = '2031-01-01'))).toThrow(/after its sunset/);
    expect(bad((o) => (o.versions[0].deprecated!.message = 'two\r\nlines'))).toThrow(ConfigurationError);
    expect(bad((o) => (o.versions[1].label = 'v/2'))).toThrow(ConfigurationError);
    expect(bad((o) => (o.versions[1].label = 'v1'))).toThrow(/unique/);
    expect(bad((o) => (o.current = 'v9'))).toThrow(ConfigurationError);
    expect(bad((o) => (o.prefix = 'api'))).toThrow(ConfigurationError);
  });

  it('refuses two operations with one operationId in a version', () => {
    const twice = route('GET /again', () => ({ status: 200, json: null }));
    const o = options();
    o.versions[1].routers.push([{ ...twice, operation: 'x', doc: { operationId: 'things_read' } }]);
    expect(() => versioning(o)).toThrow(/operationId things_read/);
  });

  it('defaults the deprecation date to the sunset, and keeps a full date-time as given', () => {
    const deprecation = parseDeprecation('v1', { message: 'Bye', sunset: '2030-01-31T12:00:00Z' });
    const headers = deprecationHeaders(deprecation, '/api/v1/docs');
    expect(headers['X-API-Sunset']).toBe('2030-01-31T12:00:00.000Z');
    expect(headers.Sunset).toBe('Thu, 31 Jan 2030 12:00:00 GMT');
    expect(headers.Deprecation).toBe(`@${Date.UTC(2030, 0, 31, 12) / 1000}`);
  });

  it('leaves a route marked includeInSchema: false out of the document', () => {
    const get = (path: string, extra: Partial<RouteDescriptor>): RouteDescriptor => ({
      ...route(`GET /api/v2/${path}`, () => ({ status: 200, json: null })),
      doc: { operationId: path },
      ...extra,
    });
    const doc = buildOpenApiDocument({
      label: 'v2',
      routes: [get('shown', {}), get('internal', { includeInSchema: false })],
      docs: {},
    }) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(['/api/v2/shown']);
  });

  it('documents a request body as required unless the route says it may be left out', () => {
    const body = { type: 'object', properties: { token: { type: 'string' } } };
    const post = (operation: string, extra: object): RouteDescriptor => ({
      ...route(`POST /api/v2/${operation}`, () => ({ status: 200, json: null })),
      doc: { operationId: operation, requestBody: body, ...extra },
    });
    const doc = buildOpenApiDocument({
      label: 'v2',
      routes: [post('strict', {}), post('lenient', { requestBodyRequired: false })],
      docs: {},
    }) as { paths: Record<string, { post: { requestBody: { required: boolean } } }> };
    expect(doc.paths['/api/v2/strict'].post.requestBody.required).toBe(true);
    expect(doc.paths['/api/v2/lenient'].post.requestBody.required).toBe(false);
  });

  it("documents on every operation the 400, 413, 415 and 422 any request body or path can draw, keeping a route's own", () => {
    const own = { '422': { description: 'Its own', schema: { type: 'object' } } };
    const routes = [
      { ...route('GET /api/v2/plain', () => ({ status: 200, json: null })), operation: 'plain' },
      {
        ...route('POST /api/v2/own', () => ({ status: 200, json: null })),
        doc: { operationId: 'own', responses: own },
      },
    ];
    const doc = buildOpenApiDocument({ label: 'v2', routes, docs: {} }) as {
      paths: Record<string, Record<string, { responses: Record<string, any> }>>;
    };
    for (const [path, method] of [
      ['/api/v2/plain', 'get'],
      ['/api/v2/own', 'post'],
    ]) {
      expect(Object.keys(doc.paths[path][method].responses)).toEqual(
        expect.arrayContaining(['400', '413', '415', '422']),
      );
    }
    expect(doc.paths['/api/v2/plain'].get.responses['415'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(doc.paths['/api/v2/plain'].get.responses['422'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ValidationError',
    });
    expect(doc.paths['/api/v2/own'].post.responses['422'].description).toBe('Its own');
  });

  it('lists the unversioned routes docs.unversioned names in every version, at their own paths, never deprecated', async () => {
    const signIn: RouteDescriptor = {
      ...route('POST /auth/sign-in', () => ({ status: 200, json: null })),
      operation: 'sign_in',
      doc: {
        operationId: 'sign_in',
        requestBody: { type: 'object' },
        responses: { '401': { description: 'Wrong password' } },
        security: [{ key: [] }],
        securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
      },
    };
    const o = options();
    o.docs = { unversioned: [signIn] };
    const plugin = versioning(o);
    for (const version of plugin.versions) {
      const operation = version.openapi!.paths['/auth/sign-in'].post;
      expect(operation, version.label).toMatchObject({
        operationId: 'sign_in',
        security: [{ key: [] }],
        responses: { '401': { description: 'Wrong password' } },
      });
      expect(operation.deprecated, version.label).toBeUndefined();
      expect(version.openapi!.components.securitySchemes.key).toEqual({ type: 'apiKey', in: 'header', name: 'X-Key' });
      await expectValidOpenApi(version.openapi);
    }
    expect(plugin.versions[0].openapi!.paths['/api/v1/things/{id}'].get.deprecated).toBe(true);
    // Documented, not served: the app mounts those routes itself.
    expect((plugin.routes ?? []).some((r) => r.path === '/auth/sign-in')).toBe(false);
  });

  it('points the docs Link under the mount path an adapter prefix or proxy adds', () => {
    const plugin = versioning({ ...options(), docs: { mountPath: '/service/' } });
    expect(plugin.versions[0].headers.Link).toBe(
      '</service/api/v1/docs>; rel="deprecation"; type="text/html", </service/api/v1/docs>; rel="sunset"; type="text/html"',
    );
  });

  it('serves no documents when docs are off, and their paths are the version 404', async () => {
    const plugin = versioning({ ...options(), docs: { enabled: false } });
    expect(plugin.routes!.map((r) => r.path).filter((p) => /openapi|docs/.test(p))).toEqual([]);
    expect(plugin.versions.every((v) => v.openapi === undefined)).toBe(true);
    expect(plugin.versions[0].headers.Link).toBeUndefined();
    expect(plugin.versions[0].headers['X-API-Sunset']).toBe('2030-01-31');
  });
});

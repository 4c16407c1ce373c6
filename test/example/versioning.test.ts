import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, Client } from '../plugins/account/fixture';
import { expectValidOpenApi, openApiChecker } from '../plugins/versioning/openapi-check';
import { ADAPTER_ENGINES, send, startExample, type ExampleServer } from './example-server';

const SUNSET = '2027-03-31';
const DEPRECATION_HEADERS = ['x-api-deprecation', 'x-api-sunset', 'deprecation', 'sunset', 'link'];

// The example's /api/v1 (deprecated) and /api/v2 (current) through the versioning plugin
// (issue #8): headers, discovery, 404s, and OpenAPI documents that the
// real answers validate against.
describe.each(ADAPTER_ENGINES)('example app API versions on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let ann: Client;
  const docs: Record<string, any> = {};

  beforeAll(async () => {
    ex = await startExample(engine, {
      adapter,
      users: ['ann'],
      build: { apiV1Sunset: SUNSET, rateLimit: { defaultLimit: 100_000 } },
    });
    ann = await ex.signedIn('ann');
    for (const version of ['v1', 'v2']) docs[version] = (await ex.client().get(`/api/${version}/openapi.json`)).body;
  });
  afterAll(async () => {
    await ex?.close();
  });

  const expectDeprecated = (answer: Answer, what: string) => {
    const h = answer.headers;
    expect(h.get('x-api-deprecation'), what).toMatch(/deprecated/);
    expect(h.get('x-api-sunset'), what).toBe(SUNSET);
    expect(h.get('sunset'), what).toBe('Wed, 31 Mar 2027 00:00:00 GMT');
    expect(h.get('deprecation'), what).toBe(`@${Date.parse(`${SUNSET}T00:00:00Z`) / 1000}`);
    expect(h.get('link'), what).toContain('</api/v1/docs>; rel="deprecation"');
    expect(h.get('link'), what).toContain('</api/v1/docs>; rel="sunset"');
  };
  const expectCurrent = (answer: Answer, what: string) => {
    for (const name of DEPRECATION_HEADERS) expect(answer.headers.get(name), `${what}: ${name}`).toBeNull();
  };
  const samples = async (version: string): Promise<[string, Answer][]> => {
    const c = ex.client();
    return [
      ['list', await c.get(`/api/${version}/items`)],
      ['missing item', await c.get(`/api/${version}/items/999999`)],
      ['bad id', await c.get(`/api/${version}/items/abc`)],
      ['bad body', await c.request('POST', `/api/${version}/items`, { json: { price: 'x' } })],
      ['anonymous post', await c.request('POST', `/api/${version}/posts/`, { json: { title: 'T', text: 'x' } })],
      ['unmatched path', await c.get(`/api/${version}/no/such/thing`)],
      ['openapi', await c.get(`/api/${version}/openapi.json`)],
      ['docs page', await c.get(`/api/${version}/docs`)],
      ['other method', await c.request('PUT', `/api/${version}/items`)],
    ];
  };

  it('marks every /api/v1 answer deprecated, errors and 404s included, with one date', async () => {
    for (const [what, answer] of await samples('v1')) expectDeprecated(answer, what);
    expect((await samples('v1')).map(([, a]) => a.status)).toEqual([200, 404, 422, 422, 401, 404, 200, 200, 405]);
  });

  it('marks no /api/v2 answer', async () => {
    for (const [what, answer] of await samples('v2')) expectCurrent(answer, what);
  });

  it('lists the versions at /api/versions, with the same sunset date', async () => {
    const answer = await ex.client().get('/api/versions');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      available_versions: ['v1', 'v2'],
      current_version: 'v2',
      deprecated_versions: ['v1'],
      sunset_dates: { v1: SUNSET },
    });
    expectCurrent(answer, 'discovery');
  });

  it('answers an unknown version with a JSON 404 naming it, without deprecation headers', async () => {
    for (const path of ['/api/v3/items', '/api/v3', '/api/v0/users/1']) {
      const answer = await ex.client().get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.detail, path).toMatch(/Unknown API version v[03]; available: v1, v2/);
      expectCurrent(answer, path);
    }
    const other = await ex.client().request('DELETE', '/api/elsewhere');
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: 'Not Found' });
  });

  it('publishes one valid OpenAPI 3.1 document per version, each with its own routes and the /auth routes', async () => {
    for (const version of ['v1', 'v2']) {
      const doc = docs[version];
      await expectValidOpenApi(doc);
      expect(doc.openapi).toBe('3.1.0');
      const paths = Object.keys(doc.paths);
      expect(
        paths.every((path) => path.startsWith(`/api/${version}/`) || path.startsWith('/auth/')),
        paths.join(' '),
      ).toBe(true);
      expect(paths).toEqual(
        expect.arrayContaining([`/api/${version}/items`, `/api/${version}/items/{id}`, `/api/${version}/posts/`]),
      );
      const ids = Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops).map((op) => op.operationId));
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(Object.keys(docs.v1.paths)).toEqual(expect.arrayContaining(['/api/v1/users/', '/api/v1/tiers']));
    expect(Object.values<any>(docs.v1.paths['/api/v1/items']).every((op) => op.deprecated === true)).toBe(true);
    expect(docs.v2.paths['/api/v2/items'].get.deprecated).toBeUndefined();
  });

  it('lists every /auth route in each document with its body, errors and security schemes, never deprecated', async () => {
    const routes = ex.app.auth.router;
    expect(routes.length).toBeGreaterThan(20);
    for (const version of ['v1', 'v2']) {
      const doc = docs[version];
      for (const route of routes) {
        const where = `${version}: ${route.method} ${route.path}`;
        const operation = doc.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
        expect(operation, where).toBeDefined();
        expect(operation.operationId, where).toBe(route.doc!.operationId);
        expect(operation.deprecated, where).toBeUndefined();
        if (route.doc!.requestBody)
          expect(Object.keys(operation.requestBody.content).sort(), where).toEqual(
            [...(route.doc!.requestBodyContentTypes ?? ['application/json'])].sort(),
          );
        for (const [status, response] of Object.entries(route.doc!.responses ?? {})) {
          expect(operation.responses[status]?.description, `${where} ${status}`).toBe(response.description);
        }
        expect(operation.security, where).toEqual(route.doc!.security);
        for (const name of Object.keys(route.doc!.securitySchemes ?? {}))
          expect(doc.components.securitySchemes[name], `${where} ${name}`).toEqual(route.doc!.securitySchemes![name]);
      }
    }
    const mfaVerify = docs.v2.paths['/auth/mfa/verify'].post;
    expect(Object.keys(mfaVerify.requestBody.content)).toEqual(['application/json']);
    expect(mfaVerify.responses['415'].content['application/json'].schema.examples).toEqual([
      { detail: 'Send the body as JSON (Content-Type: application/json)' },
    ]);
    expect(Object.keys(docs.v2.paths['/auth/login'].post.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);

    // Real answers of /auth validate against the documents.
    const checker = openApiChecker(docs.v2);
    const c = ex.client();
    checker.check(
      'POST',
      '/auth/login',
      await c.request('POST', '/auth/login', { form: { username: 'ann', password: 'wrong password' } }),
    );
    checker.check(
      'POST',
      '/auth/mfa/verify',
      await c.request('POST', '/auth/mfa/verify', { form: { challenge: 'x', code: '123456' } }),
    );
    checker.check(
      'POST',
      '/auth/password/reset-request',
      await c.request('POST', '/auth/password/reset-request', { json: { email: 'nobody@example.com' } }),
    );
    checker.check('GET', '/auth/me', await c.get('/auth/me'));
    checker.check('GET', '/auth/me', await ann.get('/auth/me'));
    expect(checker.checks).toBe(5);
  });

  it('documents query parameters, bodies without excluded fields, security and error bodies', async () => {
    const list = docs.v2.paths['/api/v2/items'].get;
    const param = (name: string) => list.parameters.find((p: any) => p.name === name && p.in === 'query');
    expect(param('page').schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('sort').schema.type).toBe('string');
    expect(param('cursor')).toBeDefined();
    expect(param('price__gte').schema.type).toBe('number');
    expect(param('id__in').schema).toMatchObject({ type: 'array', items: { type: 'integer' } });
    // Text operators are documented for text columns only.
    expect(param('name__ilike').schema.type).toBe('string');
    for (const name of ['price__ilike', 'id__contains', 'last_sold__startswith', 'created_at__match'])
      expect(param(name), name).toBeUndefined();
    expect(list.responses['429'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const createPost = docs.v2.paths['/api/v2/posts/'].post;
    expect(Object.keys(createPost.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'text',
      'title',
    ]);
    expect(createPost.security).toEqual([{ accountSession: [], accountCsrf: [] }, { accountBearer: [] }]);
    expect(docs.v2.components.securitySchemes).toMatchObject({
      accountSession: { type: 'apiKey', in: 'cookie', name: 'cs_session' },
      accountCsrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
      accountBearer: { type: 'http', scheme: 'bearer' },
    });
    for (const status of ['401', '403', '422', '429']) expect(createPost.responses[status], status).toBeDefined();
    expect(docs.v2.paths['/api/v2/items'].post.security).toBeUndefined();
    const itemBody = docs.v2.paths['/api/v2/items'].post.requestBody.content['application/json'].schema;
    for (const hidden of ['id', 'created_at', 'updated_at', 'is_deleted', 'deleted_at'])
      expect(itemBody.properties[hidden], hidden).toBeUndefined();
    expect(docs.v1.paths['/api/v1/users/me'].get.security).toEqual([{ accountSession: [] }, { accountBearer: [] }]);
  });

  it('answers what its documents say (Ajv over real answers)', async () => {
    for (const version of ['v1', 'v2']) {
      const checker = openApiChecker(docs[version]);
      const check = checker.check;
      const c = ex.client();
      const p = `/api/${version}`;
      const created = await c.request('POST', `${p}/items`, {
        json: { name: 'Lamp', price: 19.5, category: 'home', last_sold: '2024-05-06T07:08:09.000Z' },
      });
      check('POST', `${p}/items`, created);
      const id = created.body.id;
      check('POST', `${p}/items`, await c.request('POST', `${p}/items`, { json: { name: 5 } }));
      check('GET', `${p}/items/{id}`, await c.get(`${p}/items/${id}`));
      check('GET', `${p}/items/{id}`, await c.get(`${p}/items/999999`));
      check('GET', `${p}/items/{id}`, await c.get(`${p}/items/abc`));
      for (const query of [
        '',
        '?page=1&itemsPerPage=2',
        '?offset=0&limit=1&sort=-price',
        '?cursor=&limit=1',
        '?name=Lamp&price__gte=1&id__in=1,2,3',
        '?sort=nope',
        '?page=0',
        '?page=1&offset=2',
      ]) {
        check('GET', `${p}/items`, await c.get(`${p}/items${query}`));
      }
      const cursor = await c.get(`${p}/items?cursor=&limit=1`);
      check(
        'GET',
        `${p}/items`,
        await c.get(`${p}/items?cursor=${encodeURIComponent(cursor.body.next_cursor ?? '')}&limit=1`),
      );
      check('PATCH', `${p}/items/{id}`, await c.request('PATCH', `${p}/items/${id}`, { json: { price: 21 } }));
      check('PATCH', `${p}/items/{id}`, await c.request('PATCH', `${p}/items/${id}`, { json: { price: 'free' } }));
      check('DELETE', `${p}/items/{id}`, await c.request('DELETE', `${p}/items/${id}`));
      check('DELETE', `${p}/items/{id}`, await c.request('DELETE', `${p}/items/${id}`));

      check('POST', `${p}/posts/`, await c.request('POST', `${p}/posts/`, { json: { title: 'T', text: 'x' } }));
      check('POST', `${p}/posts/`, await ann.request('POST', `${p}/posts/`, { json: { title: 'T', text: 'x' } }));
      check('POST', `${p}/posts/`, await send(ann, 'POST', `${p}/posts/`, { title: 'Hello', text: 'documented' }));
      check('POST', `${p}/posts/`, await send(ann, 'POST', `${p}/posts/`, { title: 'Hello', text: 'x', author_id: 1 }));
      check('GET', `${p}/posts/`, await c.get(`${p}/posts/?page=1&items_per_page=5`));
      expect(checker.checks).toBe(23);
    }
  });

  it('answers the tier routes as /api/v1 documents them', async () => {
    const { check } = openApiChecker(docs.v1);
    const c = ex.client();
    const name = `doc-tier-${Math.floor(Math.random() * 1e6)}`;
    const created = await send(ex.admin, 'POST', '/api/v1/tiers', { name, description: null });
    expect(created.status).toBe(201);
    check('POST', '/api/v1/tiers', created);
    check('POST', '/api/v1/tiers', await send(ex.admin, 'POST', '/api/v1/tiers', { name }));
    check('POST', '/api/v1/tiers', await send(ex.admin, 'POST', '/api/v1/tiers', { name: '' }));
    check('POST', '/api/v1/tiers', await send(ann, 'POST', '/api/v1/tiers', { name: 'mine' }));
    check('POST', '/api/v1/tiers', await c.request('POST', '/api/v1/tiers', { json: { name: 'anon' } }));
    check('GET', '/api/v1/tiers', await c.get('/api/v1/tiers'));
    check('GET', '/api/v1/tier/{tier_name}', await c.get(`/api/v1/tier/${name}`));
    check('GET', '/api/v1/tier/{tier_name}', await c.get('/api/v1/tier/no-such-tier'));
    const limit = await send(ex.admin, 'POST', `/api/v1/tier/${name}/rate_limit`, {
      name: 'items',
      path: '/api/v2/items/',
      limit: 5,
      period: 60,
    });
    check('POST', '/api/v1/tier/{tier_name}/rate_limit', limit);
    check(
      'POST',
      '/api/v1/tier/{tier_name}/rate_limit',
      await send(ex.admin, 'POST', `/api/v1/tier/${name}/rate_limit`, { name: 'x', path: '/', limit: -1, period: 0 }),
    );
    check('GET', '/api/v1/tier/{tier_name}/rate_limits', await c.get(`/api/v1/tier/${name}/rate_limits`));
    check(
      'PUT',
      '/api/v1/users/{user_id}/tier',
      await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids.ann}/tier`, { tier_id: created.body.id }),
    );
    check(
      'PUT',
      '/api/v1/users/{user_id}/tier',
      await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids.ann}/tier`, { tier_id: null }),
    );
    check(
      'PUT',
      '/api/v1/users/{user_id}/tier',
      await send(ex.admin, 'PUT', '/api/v1/users/999999/tier', { tier_id: null }),
    );
    check(
      'PUT',
      '/api/v1/users/{user_id}/tier',
      await send(ex.admin, 'PUT', `/api/v1/users/${ex.ids.ann}/tier`, { tier_id: 'gold' }),
    );
  });

  it('answers the users routes as its documents say, per version', async () => {
    const shapes = { v1: 'profile_image_url', v2: 'avatar_url' };
    for (const version of ['v1', 'v2'] as const) {
      const { check } = openApiChecker(docs[version]);
      const p = `/api/${version}/users`;
      const c = ex.client();
      const fresh = `${version}user${Math.floor(Math.random() * 1e6)}`;
      const body = {
        name: 'Doc User',
        username: fresh,
        email: `${fresh}@example.com`,
        password: 'a perfectly fine passphrase',
        ...(version === 'v2' ? { accept_terms: true } : {}),
      };
      const created =
        version === 'v1' ? await c.request('POST', `${p}/`, { json: body }) : await send(ann, 'POST', `${p}/`, body);
      expect(created.status).toBe(201);
      expect(created.body[shapes[version]]).toEqual(expect.any(String));
      check('POST', `${p}/`, created);
      check(
        'POST',
        `${p}/`,
        version === 'v1' ? await c.request('POST', `${p}/`, { json: body }) : await send(ann, 'POST', `${p}/`, body),
      );
      check(
        'POST',
        `${p}/`,
        version === 'v1'
          ? await c.request('POST', `${p}/`, { json: { ...body, email: 'nope' } })
          : await send(ann, 'POST', `${p}/`, { ...body, accept_terms: false }),
      );
      if (version === 'v2') check('POST', `${p}/`, await c.request('POST', `${p}/`, { json: body }));
      check('GET', `${p}/`, await c.get(`${p}/?page=1&items_per_page=2`));
      check('GET', `${p}/`, await c.get(`${p}/?items_per_page=500`));
      check('GET', `${p}/{user_id}`, await c.get(`${p}/${created.body.id}`));
      check('GET', `${p}/{user_id}`, await c.get(`${p}/999999`));
      check('GET', `${p}/me`, await ann.get(`${p}/me`));
      check('GET', `${p}/me`, await c.get(`${p}/me`));
      check('PATCH', `${p}/{user_id}`, await send(ann, 'PATCH', `${p}/${ex.ids.ann}`, { name: 'Ann Again' }));
      check('PATCH', `${p}/{user_id}`, await send(ann, 'PATCH', `${p}/${created.body.id}`, { name: 'Not mine' }));
      const form = new FormData();
      form.append('file', new Blob(['not an image'], { type: 'text/plain' }), 'notes.txt');
      const upload = await fetch(`${ex.base}${p}/${ex.ids.ann}/avatar`, {
        method: 'POST',
        body: form,
        headers: {
          cookie: [...ann.jar].map(([k, v]) => `${k}=${v}`).join('; '),
          'x-csrf-token': ann.jar.get('cs_csrf') ?? '',
        },
      });
      check('POST', `${p}/{user_id}/avatar`, {
        status: upload.status,
        headers: upload.headers,
        body: await upload.json(),
      });
    }
  });
});

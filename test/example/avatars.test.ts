import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../plugins/account/fixture';
import { openApiChecker } from '../plugins/versioning/openapi-check';
import { ADAPTER_ENGINES, ADMIN_PASSWORD, PASSWORD, startExample, type ExampleServer } from './example-server';

// A real 1×1 PNG; bytes after IEND do not change what it is, so it can be padded to any size.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d9c0a40000000049454e44ae426082',
  'hex',
);
const MiB = 1024 * 1024;
const padded = (size: number) => Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]);
const STORED = /^\/static\/avatars\/[0-9a-f]{32}\.png$/;

interface Part {
  bytes: Buffer;
  type: string;
  filename?: string;
  field?: string;
}

// POST /api/vN/users/{user_id}/avatar: multipart `file`, image of its declared kind, AVATAR_MAX_BYTES, stored under
// DATA_DIR with a name of ours and served back with its real type and nosniff.
describe.each(ADAPTER_ENGINES)('example app avatar uploads on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let dataDir: string;
  let ann: Client;

  /** Sends a multipart upload as `c` (session cookie and CSRF header), or with `headers` alone. */
  const upload = async (
    path: string,
    part: Part | null,
    as: { client?: Client; headers?: Record<string, string> } = {},
  ) => {
    const form = new FormData();
    if (part) form.append(part.field ?? 'file', new Blob([part.bytes], { type: part.type }), part.filename ?? 'me.png');
    const headers: Record<string, string> = { ...as.headers };
    if (as.client) {
      headers.cookie = [...as.client.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      headers['x-csrf-token'] = as.client.jar.get('cs_csrf') ?? '';
    }
    const res = await fetch(`${ex.base}${path}`, { method: 'POST', body: form, headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const annPath = (version = 'v1') => `/api/${version}/users/${ex.ids.ann}/avatar`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cs-avatars-'));
    ex = await startExample(engine, {
      adapter,
      users: ['ann', 'ben'],
      build: { dataDir, rateLimit: { defaultLimit: 100_000 } },
    });
    ann = await ex.signedIn('ann');
  });
  afterAll(async () => {
    await ex?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores a real PNG under DATA_DIR with a generated name and serves it back with its type and nosniff', async () => {
    const res = await upload(
      annPath(),
      { bytes: PNG, type: 'image/png', filename: '../../etc/evil.png' },
      { client: ann },
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['email', 'id', 'name', 'profile_image_url', 'tier_id', 'username']);
    expect(res.body.profile_image_url).toMatch(STORED);
    const name = res.body.profile_image_url.split('/').pop();
    expect(readdirSync(join(dataDir, 'avatars'))).toContain(name);
    const served = await fetch(`${ex.base}${res.body.profile_image_url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await ex.client().get(`/api/v1/users/${ex.ids.ann}`)).body.profile_image_url).toBe(
      res.body.profile_image_url,
    );
    expect((await ex.client().get(`/api/v2/users/${ex.ids.ann}`)).body.avatar_url).toBe(res.body.profile_image_url);
  });

  it('v2 answers UserReadV2, takes a bearer token, and a new upload replaces (and removes) the old file', async () => {
    const before = (await ex.client().get(`/api/v2/users/${ex.ids.ann}`)).body.avatar_url;
    const token = (await ex.client().request('POST', '/auth/token', { form: { username: 'ann', password: PASSWORD } }))
      .body.access_token;
    const res = await upload(
      annPath('v2'),
      { bytes: padded(5000), type: 'image/png' },
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ex.ids.ann,
      avatar_url: expect.stringMatching(STORED),
      subscription_tier: null,
    });
    expect(res.body.avatar_url).not.toBe(before);
    if (STORED.test(before)) {
      expect((await fetch(`${ex.base}${before}`)).status).toBe(404);
      expect(existsSync(join(dataDir, 'avatars', before.split('/').pop()))).toBe(false);
    }
  });

  it('answers 401 without login, 403 for someone else, and lets a superuser set anyone’s (404 for no one)', async () => {
    const part = { bytes: PNG, type: 'image/png' };
    expect((await upload(annPath(), part)).status).toBe(401);
    const ben = await ex.signedIn('ben');
    expect((await upload(annPath(), part, { client: ben })).status).toBe(403);
    expect((await upload('/api/v1/users/99999/avatar', part, { client: ben })).status).toBe(403);
    const byAdmin = await upload(`/api/v1/users/${ex.ids.ben}/avatar`, part, { client: ex.admin });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.id).toBe(ex.ids.ben);
    expect((await upload('/api/v1/users/99999/avatar', part, { client: ex.admin })).status).toBe(404);
    expect(
      (await upload(annPath(), part, { headers: { cookie: [...ann.jar].map(([k, v]) => `${k}=${v}`).join('; ') } }))
        .status,
    ).toBe(403); // no CSRF header
  });

  it('answers 400 for a content type that is not image/*, and for bytes that are not the declared image', async () => {
    const wrongType = await upload(annPath(), { bytes: PNG, type: 'text/plain' }, { client: ann });
    expect(wrongType.status).toBe(400);
    expect(typeof wrongType.body.detail).toBe('string');
    const textAsPng = await upload(
      annPath(),
      { bytes: Buffer.from('just some text, not a picture\n'), type: 'image/png', filename: 'note.png' },
      { client: ann },
    );
    expect(textAsPng.status).toBe(400);
    expect(
      (await upload(annPath(), { bytes: PNG, type: 'image/jpeg', filename: 'me.jpg' }, { client: ann })).status,
    ).toBe(400);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(
      (await upload(annPath(), { bytes: svg, type: 'image/svg+xml', filename: 'x.svg' }, { client: ann })).status,
    ).toBe(400);
    expect((await upload(annPath(), { bytes: PNG, type: 'application/octet-stream' }, { client: ann })).status).toBe(
      400,
    );
  });

  it('answers 422 without a part named file', async () => {
    expect((await upload(annPath(), { bytes: PNG, type: 'image/png', field: 'avatar' }, { client: ann })).status).toBe(
      422,
    );
    expect((await upload(annPath(), null, { client: ann })).status).toBe(422);
  });

  it('takes up to AVATAR_MAX_BYTES (2 MiB, above the 1 MiB JSON limit) and answers 413 beyond', async () => {
    expect((await upload(annPath(), { bytes: padded(1.5 * MiB), type: 'image/png' }, { client: ann })).status).toBe(
      200,
    );
    expect((await upload(annPath(), { bytes: padded(2 * MiB), type: 'image/png' }, { client: ann })).status).toBe(200);
    const over = await upload(annPath(), { bytes: padded(2 * MiB + 1), type: 'image/png' }, { client: ann });
    expect(over.status).toBe(413);
    expect(typeof over.body.detail).toBe('string');
    expect((await upload(annPath(), { bytes: padded(3 * MiB), type: 'image/png' }, { client: ann })).status).toBe(413);
    expect((await ex.client().get(`/api/v1/users/${ex.ids.ann}`)).status).toBe(200);
  });

  it("leaves no orphaned file when one user uploads concurrently: every file on disk is some user's avatar", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        upload(annPath(i % 2 ? 'v2' : 'v1'), { bytes: padded(1000 + i), type: 'image/png' }, { client: ann }),
      ),
    );
    for (const res of results) expect(res.status).toBe(200);
    const stored = (await ex.db.knex('users').whereNotNull('profile_image_url').pluck('profile_image_url')) as string[];
    const referenced = stored
      .filter((url) => STORED.test(url))
      .map((url) => url.split('/').pop())
      .sort();
    expect(readdirSync(join(dataDir, 'avatars')).sort()).toEqual(referenced);
    const annUrl = (await ex.db.knex('users').where({ id: ex.ids.ann }).first()).profile_image_url;
    expect(annUrl).toMatch(STORED);
    expect(referenced).toContain(annUrl.split('/').pop());
  });

  it('removes the file when a superuser deletes the user for good', async () => {
    const created = await ex.client().request('POST', '/api/v1/users/', {
      json: { name: 'Gone', username: 'gone', email: 'gone@example.com', password: PASSWORD },
    });
    const url = (
      await upload(`/api/v1/users/${created.body.id}/avatar`, { bytes: PNG, type: 'image/png' }, { client: ex.admin })
    ).body.profile_image_url;
    expect(url).toMatch(STORED);
    expect(
      (
        await ann.request('DELETE', `/api/v1/users/${created.body.id}/permanent`, {
          headers: { 'x-csrf-token': ann.jar.get('cs_csrf')! },
        })
      ).status,
    ).toBe(403);
    // Sensitive: the superuser confirms the password at /sudo first.
    expect((await ex.admin.post('/api/v1/sudo', { password: ADMIN_PASSWORD })).status).toBe(200);
    expect((await ex.admin.del(`/api/v1/users/${created.body.id}/permanent`)).status).toBe(200);
    expect(existsSync(join(dataDir, 'avatars', url.split('/').pop()))).toBe(false);
    expect((await fetch(`${ex.base}${url}`)).status).toBe(404);
  });

  it('serves only stored names: anything else under /static/avatars/ is 404, the default avatar stays', async () => {
    for (const name of ['..%2Fsecret_key', 'nothere.png', `${'a'.repeat(32)}.png`, `${'a'.repeat(32)}.svg`])
      expect((await fetch(`${ex.base}/static/avatars/${name}`)).status).toBe(404);
    const fallback = await fetch(`${ex.base}/static/avatars/default.svg`);
    expect(fallback.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(fallback.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers what the documents say: multipart body, 200, 400, 401, 403, 413 and 422', async () => {
    for (const version of ['v1', 'v2']) {
      const doc = (await ex.client().get(`/api/${version}/openapi.json`)).body;
      const template = `/api/${version}/users/{user_id}/avatar`;
      expect(Object.keys(doc.paths[template].post.requestBody.content)).toEqual(['multipart/form-data']);
      const checker = openApiChecker(doc);
      const png = { bytes: PNG, type: 'image/png' };
      checker.check('POST', template, await upload(annPath(version), png, { client: ann }));
      checker.check(
        'POST',
        template,
        await upload(annPath(version), { bytes: PNG, type: 'text/plain' }, { client: ann }),
      );
      checker.check('POST', template, await upload(annPath(version), png));
      checker.check('POST', template, await upload(`/api/${version}/users/${ex.ids.ben}/avatar`, png, { client: ann }));
      checker.check(
        'POST',
        template,
        await upload(annPath(version), { bytes: padded(2 * MiB + 1), type: 'image/png' }, { client: ann }),
      );
      checker.check('POST', template, await upload(annPath(version), null, { client: ann }));
      expect(checker.checks).toBe(6);
    }
  });
});

// Every upload costs disk and CPU: the route is counted by the rate limiter in every
// version, per user (v1's other users routes are not).
describe.each(ADAPTER_ENGINES)('example app avatar upload limit on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cs-avatars-'));
    ex = await startExample(engine, {
      adapter,
      users: ['ann'],
      build: { dataDir, rateLimit: { defaultLimit: 2, defaultPeriod: 1_000_000 } },
    });
  });
  afterAll(async () => {
    await ex?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 429 past the limit, with no file stored for the refused upload', async () => {
    const ann = await ex.signedIn('ann');
    const send = async () => {
      const form = new FormData();
      form.append('file', new Blob([PNG], { type: 'image/png' }), 'me.png');
      const headers = {
        cookie: [...ann.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-csrf-token': ann.jar.get('cs_csrf') ?? '',
      };
      const res = await fetch(`${ex.base}/api/v1/users/${ex.ids.ann}/avatar`, { method: 'POST', body: form, headers });
      return { status: res.status, headers: res.headers };
    };
    for (let i = 0; i < 2; i++) expect((await send()).status).toBe(200);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(readdirSync(join(dataDir, 'avatars'))).toHaveLength(1);
  });
});

// One normalisation of usernames and e-mails (NFKC, then case folded for comparison) at
// every entry point, and uniqueness that agrees with it on every engine. Before, sign-in
// normalised and registration did not, so a user registered as `ﬀion` could never sign
// in; and SQLite's ASCII-only lower() let `Ärger` and `ärger` register twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';

for (const engine of ENGINES) {
  describe(`account: usernames and e-mails are normalised alike everywhere on koa / ${engine}`, () => {
    let env: AccountEnv;
    beforeAll(async () => {
      env = await startAccountApp(koaHarness, engine);
    });
    afterAll(async () => env?.close());

    const register = (username: string, email: string) =>
      env.client().request('POST', '/auth/register', { json: { username, email, password: PASSWORD } });
    const signIn = async (identifier: string) => (await env.client().login(identifier, PASSWORD)).status;
    const token = async (identifier: string) =>
      (await env.client().request('POST', '/auth/token', { form: { username: identifier, password: PASSWORD } }))
        .status;

    it('stores a compatibility spelling in NFKC, and the user signs in with either spelling', async () => {
      const res = await register('\ufb00ion', 'ffion@example.com');
      expect(res.status).toBe(201);
      expect(res.body.username).toBe('ffion');
      expect((await env.db.knex('users').where('id', res.body.id).first()).username).toBe('ffion');
      for (const name of ['\ufb00ion', 'ffion', 'FFION', '\uff26\uff26ion']) {
        expect(await signIn(name), name).toBe(200);
        expect(await token(name), name).toBe(200);
      }
    });

    it('refuses a case or compatibility variant of a taken non-ASCII name (409), and signs in with any case', async () => {
      expect((await register('Ärger', 'aerger@example.com')).status).toBe(201);
      for (const variant of ['ärger', 'ÄRGER', 'A\u0308rger', '\uff21\u0308rger']) {
        const res = await register(variant, `other-${variant.length}@example.com`);
        expect(res.status, variant).toBe(409);
        expect(res.body).toEqual({ detail: 'Username already registered' });
      }
      expect(await env.db.knex('users').where('email', 'like', 'other-%').first()).toBeUndefined();
      for (const name of ['Ärger', 'ärger', 'ÄRGER', 'A\u0308rger']) expect(await signIn(name), name).toBe(200);
    });

    it('normalises e-mails the same way, for uniqueness and sign-in', async () => {
      const res = await register('zoe', '\uff5aoë@example.com');
      expect(res.status).toBe(201);
      expect(res.body.email).toBe('zoë@example.com');
      expect((await register('zoe2', 'ZOË@EXAMPLE.COM')).status).toBe(409);
      for (const email of ['zoë@example.com', 'ZOË@example.com', 'zoe\u0308@example.com'])
        expect(await signIn(email), email).toBe(200);
    });

    it('checks the normalised name: a full-width @ is an @ (422)', async () => {
      const res = await register('bob\uff20home', 'bobhome@example.com');
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'username'], type: 'value_error' });
    });

    it('createUser (code) normalises as /register does, and refuses the variants', async () => {
      const created = await env.auth.createUser({
        username: '\uff2c\uff45\uff4e\uff41',
        email: 'lena@example.com',
        password: PASSWORD,
      });
      expect(created.username).toBe('Lena');
      await expect(
        env.auth.createUser({ username: 'LENA', email: 'lena2@example.com', password: PASSWORD }),
      ).rejects.toMatchObject({ status: 409 });
      expect(await signIn('lena')).toBe(200);
    });

    it('counts the lockout of an unknown name under every spelling of it', async () => {
      for (let i = 0; i < 5; i++) await env.client().login(i % 2 ? '\ufb00-ghost' : 'FF-GHOST', 'a wrong password');
      expect((await env.client().login('ff-ghost', 'a wrong password')).status).toBe(429);
    });
  });
}

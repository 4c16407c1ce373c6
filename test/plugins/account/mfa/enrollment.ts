// GET /mfa, /mfa/totp/setup, /confirm, /disable and /recovery-codes/regenerate (also when concurrent).
import { describe, expect, it } from 'vitest';
import { clock, PASSWORD, type AccountEnv } from '../fixture';
import { codeNow, enrolledUser, nextStep } from './helpers';

export function enrollmentTests(suite: { env: AccountEnv }): void {
  describe('enrolling an authenticator', () => {
    it('GET /mfa answers enabled, required and recovery_codes_remaining, before and after', async () => {
      await suite.env.user('status');
      const c = suite.env.client();
      await c.login('status', PASSWORD);
      expect((await c.get('/auth/mfa')).body).toEqual({ enabled: false, required: false, recovery_codes_remaining: 0 });
      const setup = await c.post('/auth/mfa/totp/setup', { password: PASSWORD });
      // A setup that is not confirmed changes nothing yet.
      expect((await c.get('/auth/mfa')).body).toEqual({ enabled: false, required: false, recovery_codes_remaining: 0 });
      expect((await c.post('/auth/mfa/totp/confirm', { code: await codeNow(setup.body.secret) })).status).toBe(200);
      expect((await c.get('/auth/mfa')).body).toEqual({ enabled: true, required: false, recovery_codes_remaining: 10 });
      expect((await suite.env.client().get('/auth/mfa')).status).toBe(401);
    });

    it('setup needs the password (401 wrong, 422 missing) and answers a secret with its otpauth URI; 400 once enabled', async () => {
      await suite.env.user('setter');
      const c = suite.env.client();
      await c.login('setter', PASSWORD);
      expect((await c.post('/auth/mfa/totp/setup', { password: 'not the password' })).status).toBe(401);
      expect((await c.post('/auth/mfa/totp/setup', {})).status).toBe(422);
      const setup = await c.post('/auth/mfa/totp/setup', { password: PASSWORD });
      expect(setup.status).toBe(200);
      expect(setup.headers.get('cache-control')).toBe('no-store');
      expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
      const uri = new URL(setup.body.otpauth_uri);
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.searchParams.get('secret')).toBe(setup.body.secret);
      expect(decodeURIComponent(uri.pathname)).toContain('setter');
      expect((await c.post('/auth/mfa/totp/confirm', { code: await codeNow(setup.body.secret) })).status).toBe(200);
      expect(await c.post('/auth/mfa/totp/setup', { password: PASSWORD })).toMatchObject({
        status: 400,
        body: { detail: 'Two-factor authentication is already enabled' },
      });
    });

    it('setup needs the CSRF header on the session path', async () => {
      await suite.env.user('csrfsetup');
      const c = suite.env.client();
      await c.login('csrfsetup', PASSWORD);
      expect((await c.post('/auth/mfa/totp/setup', { password: PASSWORD }, { 'x-csrf-token': 'forged' })).status).toBe(
        403,
      );
    });

    it('confirm: 400 without a setup, 401 for a wrong code, then 10 distinct recovery codes, once', async () => {
      await suite.env.user('confirmer');
      const c = suite.env.client();
      await c.login('confirmer', PASSWORD);
      expect((await c.post('/auth/mfa/totp/confirm', { code: '123456' })).status).toBe(400);
      const { body } = await c.post('/auth/mfa/totp/setup', { password: PASSWORD });
      const right = await codeNow(body.secret);
      const wrong = right === '000000' ? '000001' : '000000';
      expect(await c.post('/auth/mfa/totp/confirm', { code: wrong })).toMatchObject({
        status: 401,
        body: { detail: 'Invalid authentication code' },
      });
      expect((await c.post('/auth/mfa/totp/confirm', { code: 12345 })).status).toBe(422);
      const confirmed = await c.post('/auth/mfa/totp/confirm', { code: right });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.recovery_codes).toHaveLength(10);
      expect(new Set(confirmed.body.recovery_codes).size).toBe(10);
      for (const code of confirmed.body.recovery_codes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
      expect((await c.post('/auth/mfa/totp/confirm', { code: right })).status).toBe(400);
    });

    it('stores the secret encrypted and the recovery codes only hashed', async () => {
      const { secret, recoveryCodes } = await enrolledUser(suite.env, 'stored');
      const id = (await suite.env.db.knex('users').where({ username: 'stored' }).first('id')).id;
      const row = await suite.env.db
        .knex('account_mfa')
        .where({ user_id: String(id) })
        .first();
      expect(row.secret).not.toContain(secret);
      expect(row.secret).not.toContain(secret.slice(0, 8));
      const hashes = (
        await suite.env.db
          .knex('account_mfa_recovery_codes')
          .where({ user_id: String(id) })
          .select('code_hash')
      ).map((r) => r.code_hash as string);
      expect(hashes).toHaveLength(10);
      for (const code of recoveryCodes) {
        const bare = code.replace(/-/g, '');
        expect(hashes.some((hash) => hash.includes(bare) || hash.includes(code))).toBe(false);
      }
    });

    it('an account without a password sends {} and needs a fresh sign-in (403 past freshSignInSeconds)', async () => {
      const id = await suite.env.user('nopass');
      const c = suite.env.client();
      await c.login('nopass', PASSWORD);
      await suite.env.db.knex('users').where('id', id).update({ hashed_password: null });
      clock.skew = 601_000;
      expect(await c.post('/auth/mfa/totp/setup', {})).toMatchObject({
        status: 403,
        body: { detail: 'Sign in again first: this needs a recent sign-in' },
      });
      clock.skew = 0;
      const setup = await c.post('/auth/mfa/totp/setup', {});
      expect(setup.status).toBe(200);
      expect(setup.body.secret).toEqual(expect.any(String));
    });

    it('disable: 401 for a wrong code, 200 with a code, and sign-in no longer asks for one', async () => {
      const { client, secret } = await enrolledUser(suite.env, 'disabler');
      expect((await client.post('/auth/mfa/totp/disable', { code: 'aaaa-bbbb-cccc' })).status).toBe(401);
      expect((await client.post('/auth/mfa/totp/disable', { code: await codeNow(secret) })).status).toBe(200);
      expect((await client.get('/auth/mfa')).body).toEqual({
        enabled: false,
        required: false,
        recovery_codes_remaining: 0,
      });
      expect((await client.post('/auth/mfa/totp/disable', { code: '123456' })).status).toBe(400);
      const res = await suite.env.client().login('disabler', PASSWORD);
      expect(res.body).toHaveProperty('csrf_token');
    });

    it('disable takes a recovery code too', async () => {
      const { client, recoveryCodes } = await enrolledUser(suite.env, 'disabler2');
      expect((await client.post('/auth/mfa/totp/disable', { code: recoveryCodes[3].toUpperCase() })).status).toBe(200);
    });

    it('regenerate: new codes for a code; the old ones stop working', async () => {
      const { client, secret, recoveryCodes } = await enrolledUser(suite.env, 'regen');
      expect((await client.post('/auth/mfa/recovery-codes/regenerate', { code: 'wxyz-wxyz-wxyz' })).status).toBe(401);
      const res = await client.post('/auth/mfa/recovery-codes/regenerate', { code: await codeNow(secret) });
      expect(res.status).toBe(200);
      expect(res.body.recovery_codes).toHaveLength(10);
      expect(res.body.recovery_codes).not.toContain(recoveryCodes[0]);
      nextStep();
      expect((await client.post('/auth/mfa/recovery-codes/regenerate', { code: recoveryCodes[0] })).status).toBe(401);
      expect(
        (await client.post('/auth/mfa/recovery-codes/regenerate', { code: res.body.recovery_codes[0] })).status,
      ).toBe(200);
    });

    it('the two-factor routes take JSON bodies only: a form is 415, signed in or not', async () => {
      const { client } = await enrolledUser(suite.env, 'formfiller');
      const paths = [
        '/mfa/verify',
        '/mfa/challenge',
        '/mfa/totp/setup',
        '/mfa/totp/confirm',
        '/mfa/totp/disable',
        '/mfa/recovery-codes/regenerate',
      ];
      const form = { challenge: 'x', code: '123456', password: PASSWORD };
      for (const c of [client, suite.env.client()]) {
        for (const path of paths) {
          const res = await c.request('POST', `/auth${path}`, {
            form,
            headers: { 'x-csrf-token': c.jar.get('cs_csrf') ?? '' },
          });
          expect({ path, status: res.status, detail: res.body?.detail }).toEqual({
            path,
            status: 415,
            detail: 'Send the body as JSON (Content-Type: application/json)',
          });
        }
      }
      expect((await client.get('/auth/mfa')).body).toMatchObject({ enabled: true, recovery_codes_remaining: 10 });
    });

    it('regenerate: concurrent calls, each with its own code, leave exactly one set of 10 codes', async () => {
      const { client, recoveryCodes } = await enrolledUser(suite.env, 'regenrace');
      const answers = await Promise.all(
        recoveryCodes.slice(0, 4).map((code) => client.post('/auth/mfa/recovery-codes/regenerate', { code })),
      );
      // A call that checks its code after another replaced the set finds it gone: 401.
      const statuses = answers.map((a) => a.status);
      expect(statuses.every((status) => status === 200 || status === 401) && statuses.includes(200)).toBe(true);
      expect((await client.get('/auth/mfa')).body.recovery_codes_remaining).toBe(10);
      const [user] = await suite.env.db.knex('users').where({ username: 'regenrace' });
      const [{ n }] = await suite.env.db
        .knex('account_mfa_recovery_codes')
        .where({ user_id: String(user.id) })
        .count({ n: '*' });
      expect(Number(n)).toBe(10);
      // The set that stays is one of the answered ones, whole: its first code still works.
      const sets = answers.filter((a) => a.status === 200).map((a) => a.body.recovery_codes as string[]);
      const live = [];
      for (const set of sets)
        if ((await client.post('/auth/mfa/recovery-codes/regenerate', { code: set[0] })).status === 200) live.push(set);
      expect(live).toHaveLength(1);
    });
  });
}

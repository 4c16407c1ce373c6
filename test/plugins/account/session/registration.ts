// Registration (allow-list, lengths, duplicates, policy) and password handling (72 bytes, NFKC, bcrypt).
import { describe, expect, it } from 'vitest';
import { PASSWORD, type AccountEnv } from '../fixture';

/** Registers these tests against the suite's app (started by `sessionSuite`). */
export function registrationTests(suite: { env: AccountEnv }): void {
  describe('POST /register', () => {
    it('creates an account (201) answering public fields only, and it can sign in', async () => {
      const c = suite.env.client();
      const res = await c.request('POST', '/auth/register', {
        json: { username: 'reg1', email: 'reg1@example.com', password: PASSWORD, name: 'Reg One' },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        username: 'reg1',
        email: 'reg1@example.com',
        name: 'Reg One',
      });
      expect((await c.login('reg1', PASSWORD)).status).toBe(200);
    });

    it('refuses privilege fields in the body (422) and creates nothing', async () => {
      const c = suite.env.client();
      for (const extra of [
        { is_superuser: true },
        { is_verified: true },
        { token_version: 5 },
        { hashed_password: 'x' },
        { id: 999 },
      ]) {
        const res = await c.request('POST', '/auth/register', {
          json: { username: 'sneaky', email: 'sneaky@example.com', password: PASSWORD, ...extra },
        });
        expect(res.status).toBe(422);
        expect(res.body.detail[0]).toMatchObject({ loc: ['body', Object.keys(extra)[0]], type: 'extra_forbidden' });
      }
      expect(await suite.env.db.knex('users').where('username', 'sneaky').first()).toBeUndefined();
    });

    it('answers 422 for a value longer than its column, and for missing fields', async () => {
      const c = suite.env.client();
      const long = await c.request('POST', '/auth/register', {
        json: { username: 'u'.repeat(21), email: 'long@example.com', password: PASSWORD },
      });
      expect(long.status).toBe(422);
      expect(long.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'username'], type: 'string_too_long' }),
      ]);
      const email = await c.request('POST', '/auth/register', {
        json: { username: 'okname', email: `${'e'.repeat(45)}@example.com`, password: PASSWORD },
      });
      expect(email.body.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'string_too_long' });
      const name = await c.request('POST', '/auth/register', {
        json: { username: 'okname', email: 'ok@example.com', password: PASSWORD, name: 'n'.repeat(31) },
      });
      expect(name.status).toBe(422);
      const missing = await c.request('POST', '/auth/register', { json: {} });
      expect(missing.status).toBe(422);
      expect(missing.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual([
        'email',
        'password',
        'username',
      ]);
    });

    it('applies the password policy: length, common passwords, context; no composition rules', async () => {
      const c = suite.env.client();
      const attempt = (password: string, username = 'policy') =>
        c.request('POST', '/auth/register', { json: { username, email: `${username}@example.com`, password } });
      expect((await attempt('short7!')).body.detail[0].type).toBe('string_too_short');
      expect((await attempt('password1')).body.detail[0].type).toBe('password_common');
      expect((await attempt('Qwertyuiop')).body.detail[0].type).toBe('password_common');
      expect((await attempt('policyuser', 'policyuser')).body.detail[0].type).toBe('password_context');
      expect((await attempt('x'.repeat(1025))).body.detail[0].type).toBe('string_too_long');
      // All lower-case, no digit, no symbol: fine. A long Unicode passphrase: fine.
      expect((await attempt('tangerine meadow lantern', 'policy1')).status).toBe(201);
      expect((await attempt('très longue phrase de passe — ünïcödé 🎉'.repeat(4), 'policy2')).status).toBe(201);
    });

    it('answers 409 for a taken username or e-mail, whatever the case', async () => {
      await suite.env.user('taken');
      const c = suite.env.client();
      const byName = await c.request('POST', '/auth/register', {
        json: { username: 'TAKEN', email: 'other@example.com', password: PASSWORD },
      });
      expect(byName.status).toBe(409);
      const byEmail = await c.request('POST', '/auth/register', {
        json: { username: 'other', email: 'Taken@Example.com', password: PASSWORD },
      });
      expect(byEmail.status).toBe(409);
    });

    it('refuses an @ in usernames (sign-in reads those as e-mails)', async () => {
      const res = await suite.env
        .client()
        .request('POST', '/auth/register', { json: { username: 'a@b', email: 'ab@example.com', password: PASSWORD } });
      expect(res.status).toBe(422);
    });
  });

  describe('passwords', () => {
    it('never truncates at 72 bytes: a password sharing its first 72 bytes does not sign in', async () => {
      const long = `${'ä'.repeat(36)}-tail-one`; // 72 bytes of ä, then more
      await suite.env.user('longpw', { password: long });
      const c = suite.env.client();
      expect((await c.login('longpw', `${'ä'.repeat(36)}-tail-two`)).status).toBe(401);
      expect((await c.login('longpw', long)).status).toBe(200);
    });

    it('normalises Unicode (NFKC): composed and decomposed forms are the same password', async () => {
      await suite.env.user('unicode', { password: 'caf\u00e9 au lait please' });
      expect((await suite.env.client().login('unicode', 'cafe\u0301 au lait please')).status).toBe(200);
    });

    it('stores bcrypt hashes only', async () => {
      const row = await suite.env.db.knex('users').where('username', 'unicode').first();
      expect(row.hashed_password).toMatch(/^\$2[aby]\$04\$/);
    });
  });
}

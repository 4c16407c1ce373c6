// POST /email/verify-request and /email/verify-confirm.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clock } from '../fixture';
import { tokenOf } from './mailboxes';
import type { RecoveryEnv } from './suite';

export function verifyTests(suite: RecoveryEnv): void {
  describe('POST /email/verify-request and /email/verify-confirm', () => {
    it('answers an existing and an unknown address alike, and mails only the account', async () => {
      await suite.env.user('vera');
      const c = suite.env.client();
      const known = await c.request('POST', '/auth/email/verify-request', { json: { email: 'vera@example.com' } });
      const unknown = await c.request('POST', '/auth/email/verify-request', {
        json: { email: 'nobody-here@example.com' },
      });
      expect(known.status).toBe(202);
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
      expect(await suite.mailsTo('nobody-here@example.com')).toEqual([]);
      const mails = await suite.mailsTo('vera@example.com');
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe('Confirm your e-mail address for Test App');
      expect(mails[0].text).toContain('https://app.example.com/verify-email?token=');
      if (suite.mailbox.kind === 'outbox')
        expect(mails[0].html).toContain('<a href="https://app.example.com/verify-email?token=');
    });

    it('verifies with the mailed token, once; the flag shows where verified users are required', async () => {
      const id = await suite.env.user('vince');
      const c = suite.env.client();
      await c.login('vince', 'correct horse battery staple');
      expect((await c.get('/api/verified')).status).toBe(403);
      await c.request('POST', '/auth/email/verify-request', {
        json: { email: 'VINCE@example.com', redirect_to: '/welcome?tab=1' },
      });
      const token = tokenOf((await suite.mailsTo('vince@example.com'))[0]);
      const res = await c.request('POST', '/auth/email/verify-confirm', { json: { token } });
      expect(res).toMatchObject({ status: 200, body: { message: 'Address verified', redirect_to: '/welcome?tab=1' } });
      const row = await suite.env.db.knex('users').where('id', id).first();
      expect(Boolean(row.is_verified)).toBe(true);
      expect((await c.get('/api/verified')).status).toBe(200);
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: { token } })).status).toBe(400);
      // Verified already: no further link is mailed.
      await c.request('POST', '/auth/email/verify-request', { json: { email: 'vince@example.com' } });
      expect(await suite.mailsTo('vince@example.com')).toHaveLength(1);
    });

    it('stores only a hash of the token, bound to its purpose and account', async () => {
      const id = await suite.env.user('hasher');
      await suite.env.client().request('POST', '/auth/email/verify-request', { json: { email: 'hasher@example.com' } });
      const token = tokenOf((await suite.mailsTo('hasher@example.com'))[0]);
      const rows = await suite.env.db.knex('account_tokens').where('user_id', String(id));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        purpose: 'verify',
        token_hash: createHash('sha256').update(token).digest('hex'),
      });
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('mails nobody for a soft-deleted account', async () => {
      const id = await suite.env.user('deleted1');
      await suite.env.db.knex('users').where('id', id).update({ is_deleted: true });
      const res = await suite.env
        .client()
        .request('POST', '/auth/email/verify-request', { json: { email: 'deleted1@example.com' } });
      expect(res.status).toBe(202);
      await suite.env
        .client()
        .request('POST', '/auth/password/reset-request', { json: { email: 'deleted1@example.com' } });
      expect(await suite.mailsTo('deleted1@example.com')).toEqual([]);
    });

    it('drops a redirect_to that could leave the site', async () => {
      const c = suite.env.client();
      for (const [i, target] of [
        '//evil.example',
        '/\\evil.example',
        'https://evil.example/',
        'evil.example',
        '/\t/evil.example',
        'javascript:alert(1)',
      ].entries()) {
        const name = `redir${i}`;
        await suite.env.user(name);
        await c.request('POST', '/auth/email/verify-request', {
          json: { email: `${name}@example.com`, redirect_to: target },
        });
        const token = tokenOf((await suite.mailsTo(`${name}@example.com`))[0]);
        const res = await c.request('POST', '/auth/email/verify-confirm', { json: { token } });
        expect(res.status).toBe(200);
        expect(res.body).not.toHaveProperty('redirect_to');
      }
    });

    it('refuses an unknown, expired or outdated token with 400, and a malformed body with 422', async () => {
      const c = suite.env.client();
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: { token: 'x'.repeat(43) } })).status).toBe(
        400,
      );
      expect(
        (await c.request('POST', '/auth/email/verify-confirm', { json: { token: 'x'.repeat(5000) } })).status,
      ).toBe(400);
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: {} })).status).toBe(422);
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: { token: 12 } })).status).toBe(422);
      expect(
        (await c.request('POST', '/auth/email/verify-request', { json: { email: 'not an address' } })).status,
      ).toBe(422);
      expect(
        (await c.request('POST', '/auth/email/verify-request', { json: { email: `${'a'.repeat(60)}@example.com` } }))
          .status,
      ).toBe(422);
      expect((await c.request('POST', '/auth/email/verify-request', { json: {} })).status).toBe(422);

      await suite.env.user('late');
      await c.request('POST', '/auth/email/verify-request', { json: { email: 'late@example.com' } });
      const late = tokenOf((await suite.mailsTo('late@example.com'))[0]);
      clock.skew = 24 * 3600_000 + 1000;
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: { token: late } })).status).toBe(400);
      clock.skew = 0;

      // The address changed since the link was mailed: the link no longer verifies anything.
      const id = await suite.env.user('mover2');
      await c.request('POST', '/auth/email/verify-request', { json: { email: 'mover2@example.com' } });
      const moved = tokenOf((await suite.mailsTo('mover2@example.com'))[0]);
      await suite.env.db.knex('users').where('id', id).update({ email: 'elsewhere2@example.com' });
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: { token: moved } })).status).toBe(400);
      expect(Boolean((await suite.env.db.knex('users').where('id', id).first()).is_verified)).toBe(false);
    });
  });
}

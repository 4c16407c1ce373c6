// POST /password/reset-request and /password/reset-confirm.
import { describe, expect, it } from 'vitest';
import { clock, PASSWORD } from '../fixture';
import { tokenOf } from './mailboxes';
import type { RecoveryEnv } from './suite';

export function resetTests(suite: RecoveryEnv): void {
  const resetToken = async (name: string): Promise<string> => {
    const res = await suite.env
      .client()
      .request('POST', '/auth/password/reset-request', { json: { email: `${name}@example.com` } });
    expect(res.status).toBe(202);
    const mails = await suite.mailsTo(`${name}@example.com`);
    return tokenOf(mails.at(-1));
  };

  describe('POST /password/reset-request and /password/reset-confirm', () => {
    it('answers an existing and an unknown address alike, and mails only the account', async () => {
      await suite.env.user('rita');
      const c = suite.env.client();
      const known = await c.request('POST', '/auth/password/reset-request', { json: { email: 'rita@example.com' } });
      const unknown = await c.request('POST', '/auth/password/reset-request', { json: { email: 'ghost@example.com' } });
      expect(known).toMatchObject({
        status: 202,
        body: { message: 'If an account matches, a message with a link is on its way' },
      });
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
      expect(await suite.mailsTo('ghost@example.com')).toEqual([]);
      const mails = await suite.mailsTo('rita@example.com');
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe('Reset your Test App password');
      expect(mails[0].text).toContain('https://app.example.com/reset-password?token=');
      expect(mails[0].text).toContain('1 hour');
    });

    it('keeps the token on a password the policy refuses (422), then resets: every session and token ends', async () => {
      await suite.env.user('resa');
      const browser = suite.env.client();
      await browser.login('resa', PASSWORD);
      const tokens = (
        await suite.env.client().request('POST', '/auth/token', { form: { username: 'resa', password: PASSWORD } })
      ).body;
      const token = await resetToken('resa');
      const c = suite.env.client();
      expect(
        (await c.request('POST', '/auth/password/reset-confirm', { json: { token, new_password: 'password1' } }))
          .status,
      ).toBe(422);
      expect((await c.request('POST', '/auth/password/reset-confirm', { json: { token } })).status).toBe(422);
      const res = await c.request('POST', '/auth/password/reset-confirm', {
        json: { token, new_password: 'a brand new passphrase' },
      });
      expect(res).toMatchObject({ status: 200, body: { message: 'Password reset; sign in with the new password' } });
      expect(res.body).not.toHaveProperty('redirect_to');
      expect((await browser.get('/auth/me')).status).toBe(401);
      expect(
        (await suite.env.client().get('/auth/me', { authorization: `Bearer ${tokens.access_token}` })).status,
      ).toBe(401);
      expect(
        (await suite.env.client().request('POST', '/auth/refresh', { json: { refresh_token: tokens.refresh_token } }))
          .status,
      ).toBe(401);
      expect((await suite.env.client().login('resa', PASSWORD)).status).toBe(401);
      expect((await suite.env.client().login('resa', 'a brand new passphrase')).status).toBe(200);
      // Used up.
      expect(
        (
          await c.request('POST', '/auth/password/reset-confirm', {
            json: { token, new_password: 'yet another passphrase' },
          })
        ).status,
      ).toBe(400);
    });

    it('lets exactly one of many concurrent confirms of one token win', async () => {
      await suite.env.user('racer');
      const token = await resetToken('racer');
      const c = suite.env.client();
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          c.request('POST', '/auth/password/reset-confirm', {
            json: { token, new_password: `concurrent passphrase ${i}` },
          }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 400, 400, 400, 400, 400]);
      const winner = answers.findIndex((a) => a.status === 200);
      expect((await suite.env.client().login('racer', `concurrent passphrase ${winner}`)).status).toBe(200);
    });

    it('kills a token when the password changes, when it expires, and echoes only a safe redirect_to', async () => {
      await suite.env.user('rosa');
      const first = await resetToken('rosa');
      const c = suite.env.client();
      await c.login('rosa', PASSWORD);
      expect(
        (await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'changed it myself' }))
          .status,
      ).toBe(200);
      expect(
        (
          await c.request('POST', '/auth/password/reset-confirm', {
            json: { token: first, new_password: 'a brand new passphrase' },
          })
        ).status,
      ).toBe(400);

      const second = await resetToken('rosa');
      clock.skew = 3600_000 + 1000;
      expect(
        (
          await c.request('POST', '/auth/password/reset-confirm', {
            json: { token: second, new_password: 'a brand new passphrase' },
          })
        ).status,
      ).toBe(400);
      clock.skew = 0;

      await suite.env.client().request('POST', '/auth/password/reset-request', {
        json: { email: 'rosa@example.com', redirect_to: '/signed-out' },
      });
      const third = tokenOf((await suite.mailsTo('rosa@example.com')).at(-1));
      const res = await c.request('POST', '/auth/password/reset-confirm', {
        json: { token: third, new_password: 'a brand new passphrase' },
      });
      expect(res).toMatchObject({ status: 200, body: { redirect_to: '/signed-out' } });
    });

    it('does not take a verification token for a reset', async () => {
      await suite.env.user('mixer');
      await suite.env.client().request('POST', '/auth/email/verify-request', { json: { email: 'mixer@example.com' } });
      const verify = tokenOf((await suite.mailsTo('mixer@example.com'))[0]);
      expect(
        (
          await suite.env.client().request('POST', '/auth/password/reset-confirm', {
            json: { token: verify, new_password: 'a brand new passphrase' },
          })
        ).status,
      ).toBe(400);
      expect(
        (await suite.env.client().request('POST', '/auth/email/verify-confirm', { json: { token: verify } })).status,
      ).toBe(200);
    });
  });
}

// POST /email/change-request and /email/change-confirm.
import { describe, expect, it } from 'vitest';
import { clock, PASSWORD } from '../fixture';
import { tokenOf } from './mailboxes';
import type { RecoveryEnv } from './suite';

export function changeTests(suite: RecoveryEnv): void {
  const signedIn = async (name: string) => {
    const id = await suite.env.user(name);
    const c = suite.env.client();
    expect((await c.login(name, PASSWORD)).status).toBe(200);
    return { id, c };
  };

  describe('POST /email/change-request and /email/change-confirm', () => {
    it('needs a signed-in caller, the current password (401) and an address that fits its column (422)', async () => {
      expect(
        (
          await suite.env
            .client()
            .request('POST', '/auth/email/change-request', { json: { new_email: 'x@example.com', password: PASSWORD } })
        ).status,
      ).toBe(401);
      const { c } = await signedIn('cora');
      expect(
        (
          await c.post('/auth/email/change-request', {
            new_email: 'cora.new@example.com',
            password: 'not the password',
          })
        ).status,
      ).toBe(401);
      expect(
        (await c.post('/auth/email/change-request', { new_email: `${'c'.repeat(50)}@example.com`, password: PASSWORD }))
          .status,
      ).toBe(422);
      expect((await c.post('/auth/email/change-request', { new_email: 'no address', password: PASSWORD })).status).toBe(
        422,
      );
      expect(
        (await c.post('/auth/email/change-request', { new_email: 'CORA@example.com', password: PASSWORD })).status,
      ).toBe(422);
      expect((await c.post('/auth/email/change-request', { new_email: 'cora.new@example.com' })).status).toBe(422);
      // A session request without the CSRF header is refused before anything else.
      expect(
        (
          await c.request('POST', '/auth/email/change-request', {
            json: { new_email: 'cora.new@example.com', password: PASSWORD },
          })
        ).status,
      ).toBe(403);
      expect(await suite.mailsTo('cora.new@example.com')).toEqual([]);
    });

    it('applies the new address, verified, at confirm; the old address is told; the new one signs in', async () => {
      const { id, c } = await signedIn('carl');
      const res = await c.post('/auth/email/change-request', {
        new_email: 'carl.new@example.com',
        password: PASSWORD,
        redirect_to: '/settings',
      });
      expect(res).toMatchObject({
        status: 202,
        body: { message: 'If an account matches, a message with a link is on its way' },
      });
      expect((await suite.env.db.knex('users').where('id', id).first()).email).toBe('carl@example.com');
      const mails = await suite.mailsTo('carl.new@example.com');
      expect(mails).toHaveLength(1);
      expect(mails[0].text).toContain('https://app.example.com/confirm-email-change?token=');
      const token = tokenOf(mails[0]);
      const confirmed = await suite.env.client().request('POST', '/auth/email/change-confirm', { json: { token } });
      expect(confirmed).toMatchObject({ status: 200, body: { message: 'Address changed', redirect_to: '/settings' } });
      const row = await suite.env.db.knex('users').where('id', id).first();
      expect(row.email).toBe('carl.new@example.com');
      expect(Boolean(row.is_verified)).toBe(true);
      const notices = await suite.mailsTo('carl@example.com');
      expect(notices).toHaveLength(1);
      expect(notices[0].subject).toBe('Your Test App e-mail address was changed');
      expect(notices[0].text).toContain('carl.new@example.com');
      expect((await suite.env.client().login('carl.new@example.com', PASSWORD)).status).toBe(200);
      expect((await suite.env.client().request('POST', '/auth/email/change-confirm', { json: { token } })).status).toBe(
        400,
      );
    });

    it('takes a bearer token as well (no CSRF header on that path)', async () => {
      await suite.env.user('bert');
      const tokens = (
        await suite.env.client().request('POST', '/auth/token', { form: { username: 'bert', password: PASSWORD } })
      ).body;
      const res = await suite.env.client().request('POST', '/auth/email/change-request', {
        json: { new_email: 'bert.new@example.com', password: PASSWORD },
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(res.status).toBe(202);
      expect(await suite.mailsTo('bert.new@example.com')).toHaveLength(1);
    });

    it('answers a taken address exactly as a free one, and only tells its owner, with no link', async () => {
      await suite.env.user('taken');
      const { c } = await signedIn('claire');
      const taken = await c.post('/auth/email/change-request', { new_email: 'TAKEN@example.com', password: PASSWORD });
      const free = await c.post('/auth/email/change-request', {
        new_email: 'claire.free@example.com',
        password: PASSWORD,
      });
      expect({ status: taken.status, body: taken.body }).toEqual({ status: free.status, body: free.body });
      const notices = await suite.mailsTo('taken@example.com');
      expect(notices).toHaveLength(1);
      expect(notices[0].subject).toBe('Someone tried to use your e-mail address at Test App');
      expect(notices[0].text).not.toMatch(/token=/);
      expect(await suite.mailsTo('claire.free@example.com')).toHaveLength(1);
    });

    it('lets exactly one of concurrent confirms win, and kills the token when the address changes or it expires', async () => {
      const { c } = await signedIn('cid');
      await c.post('/auth/email/change-request', { new_email: 'cid.one@example.com', password: PASSWORD });
      await c.post('/auth/email/change-request', { new_email: 'cid.two@example.com', password: PASSWORD });
      await c.post('/auth/email/change-request', { new_email: 'cid.three@example.com', password: PASSWORD });
      const one = tokenOf((await suite.mailsTo('cid.one@example.com'))[0]);
      const two = tokenOf((await suite.mailsTo('cid.two@example.com'))[0]);
      const three = tokenOf((await suite.mailsTo('cid.three@example.com'))[0]);

      clock.skew = 24 * 3600_000 + 1000;
      expect(
        (await suite.env.client().request('POST', '/auth/email/change-confirm', { json: { token: three } })).status,
      ).toBe(400);
      clock.skew = 0;

      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          suite.env.client().request('POST', '/auth/email/change-confirm', { json: { token: one } }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400]);
      // The address moved on: the other link no longer applies.
      expect(
        (await suite.env.client().request('POST', '/auth/email/change-confirm', { json: { token: two } })).status,
      ).toBe(400);
    });

    // Whoever held the account before (a thief, or someone who registered the owner's
    // address first) must not keep a link that moves its mail to them once the owner
    // takes it back by a new password, a sign-out everywhere or a provider link.
    it('kills a pending change link when the password changes or the account is signed out everywhere', async () => {
      const { id, c } = await signedIn('cyd');
      const confirm = (token: string) =>
        suite.env.client().request('POST', '/auth/email/change-confirm', { json: { token } });
      await c.post('/auth/email/change-request', { new_email: 'cyd.thief@example.com', password: PASSWORD });
      const stolen = tokenOf((await suite.mailsTo('cyd.thief@example.com'))[0]);
      expect(
        (await c.post('/auth/change-password', { current_password: PASSWORD, new_password: 'cyd took it back' }))
          .status,
      ).toBe(200);
      expect((await confirm(stolen)).status).toBe(400);
      await c.post('/auth/email/change-request', { new_email: 'cyd.other@example.com', password: 'cyd took it back' });
      const other = tokenOf((await suite.mailsTo('cyd.other@example.com'))[0]);
      await suite.env.auth.signOutEverywhere(id);
      expect((await confirm(other)).status).toBe(400);
      expect((await suite.env.db.knex('users').where('id', id).first()).email).toBe('cyd@example.com');
    });
  });
}

// The media type the e-mail and recovery routes read: JSON only.
import { describe, expect, it } from 'vitest';
import type { RecoveryEnv } from './suite';

const ROUTES = [
  '/email/verify-request',
  '/email/verify-confirm',
  '/password/reset-request',
  '/password/reset-confirm',
  '/email/change-request',
  '/email/change-confirm',
];

export function bodyTests(suite: RecoveryEnv): void {
  describe('request bodies of the e-mail and recovery routes', () => {
    it('refuses a form body with 415 on every route, and reads the same fields as JSON', async () => {
      const c = suite.env.client();
      const form = {
        email: 'formed@example.com',
        token: 'x'.repeat(43),
        new_password: 'correct horse battery staple',
        password: 'x',
        new_email: 'y@example.com',
      };
      for (const path of ROUTES) {
        const res = await c.request('POST', `/auth${path}`, { form });
        expect({ path, status: res.status, detail: res.body?.detail }).toEqual({
          path,
          status: 415,
          detail: 'Send the body as JSON (Content-Type: application/json)',
        });
      }
      const text = await fetch(`${c.base}/auth/password/reset-request`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'formed@example.com',
      });
      expect(text.status).toBe(415);
      expect(
        (await c.request('POST', '/auth/password/reset-request', { json: { email: 'formed@example.com' } })).status,
      ).toBe(202);
      // /login keeps taking a form.
      expect(
        (await c.request('POST', '/auth/login', { form: { username: 'nobody-formed', password: 'x' } })).status,
      ).toBe(401);
    });
  });
}

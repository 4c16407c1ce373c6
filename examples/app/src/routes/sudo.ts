import { ValidationError, type RouteDescriptor } from '@crudsmith/core';
import type { AccountPlugin } from '@crudsmith/account';
import { error } from './user-docs';

/**
 * `POST /sudo`: confirms the signed-in user's password, or a two-factor code when two-factor
 * is on, and opens a short sudo window (the account plugin's `sudo.elevate`). Routes gated
 * by `auth.requireSudo()` (here the permanent delete of a user) answer 403 outside it.
 * A bearer caller gets a new access token that carries the window.
 */
export function sudoRoute(auth: AccountPlugin): RouteDescriptor {
  const signedIn = auth.currentUser();
  return {
    method: 'POST',
    path: '/sudo',
    operation: 'sudo',
    dependencies: [signedIn],
    async handler(req) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const proof: { password?: string; code?: string } = {};
      for (const field of ['password', 'code'] as const) {
        const value = body[field];
        if (value === undefined) continue;
        if (typeof value !== 'string')
          throw ValidationError.of(['body', field], 'Input should be a valid string', 'string_type');
        proof[field] = value;
      }
      const grant = await auth.sudo.elevate(req, proof);
      return {
        status: 200,
        headers: { 'Cache-Control': 'no-store' },
        json: {
          expires_at: grant.expiresAt.toISOString(),
          ...(grant.accessToken ? { access_token: grant.accessToken } : {}),
        },
      };
    },
    doc: {
      operationId: 'sudo',
      summary:
        'Confirm your password (or a two-factor code) for a few minutes of sudo: needed by the permanent delete of a user',
      tags: ['users'],
      requestBody: {
        type: 'object',
        properties: {
          password: { type: 'string' },
          code: { type: 'string', description: 'An authenticator or recovery code, when two-factor is on' },
        },
      },
      responses: {
        '200': {
          description: 'Sudo until expires_at; a bearer caller also gets an access token carrying it',
          schema: {
            type: 'object',
            required: ['expires_at'],
            properties: { expires_at: { type: 'string', format: 'date-time' }, access_token: { type: 'string' } },
          },
        },
        ...error(401, 403, 422, 429),
      },
    },
  };
}

import {
  BadRequestError,
  ForbiddenError,
  UnauthorizedError,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AccountCore, Credential } from '../account-core';
import { stringFields } from '../body';
import { credentialDependency } from '../dependencies';
import { assertFreshSignIn } from '../fresh-sign-in';
import { crossSiteCheck } from '../origin-check';
import { route } from '../route';
import { setupChallengeDetails, verifyChallenge } from './challenge-steps';
import { MFA_ALREADY_ENABLED, type TwoFactor } from './two-factor';

/** The two-factor routes: the account's own settings under `/mfa`, and the challenge step of a sign-in. */
export function mfaRoutes(core: AccountCore, mfa: TwoFactor): RouteDescriptor[] {
  const authenticated = credentialDependency(core, { optional: false });
  const caller = async (req: NeutralRequest) => (await req.resolve(authenticated)) as Credential;
  // /mfa/verify may set a session cookie: the same login-CSRF check as /login.
  const crossSite = crossSiteCheck(core.options.trustedOrigins ?? [], core.secure);

  return [
    route(
      {
        method: 'POST',
        path: '/mfa/verify',
        operation: 'mfa_verify',
        summary: 'Finish a sign-in with its second factor (authenticator or recovery code)',
      },
      async (req) => {
        if (crossSite(req)) throw new ForbiddenError('Cross-site sign-in refused');
        const { challenge, code } = stringFields(req, ['challenge', 'code']);
        return verifyChallenge(core, mfa, req, { challenge, code });
      },
    ),

    route(
      {
        method: 'POST',
        path: '/mfa/challenge',
        operation: 'mfa_challenge',
        summary: 'The authenticator secret of a setup challenge (an account that must enroll)',
      },
      async (req) => {
        const { challenge } = stringFields(req, ['challenge']);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-store' },
          json: await setupChallengeDetails(core, mfa, challenge),
        };
      },
    ),

    route(
      {
        method: 'GET',
        path: '/mfa',
        operation: 'mfa_status',
        summary: 'Whether two-factor is on, required, and how many recovery codes are left',
        dependencies: [authenticated],
      },
      async (req) => {
        return { status: 200, json: await mfa.status((await caller(req)).row) };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/mfa/totp/setup',
        operation: 'mfa_totp_setup',
        summary: 'Start enrolling an authenticator app',
        dependencies: [authenticated],
      },
      async (req) => {
        const credential = await caller(req);
        const { row } = credential;
        if (await mfa.isEnabled(row)) throw new BadRequestError(MFA_ALREADY_ENABLED);
        if (row[core.users.columns.passwordHash]) {
          const { password } = stringFields(req, ['password']);
          // The sign-in lockout applies: a stolen session cannot guess the password freely.
          await core.signIn('', password, { row, client: req.clientAddress }).catch((error: unknown) => {
            throw error instanceof UnauthorizedError ? new UnauthorizedError('Password is incorrect') : error;
          });
        } else {
          assertFreshSignIn(core, credential);
        }
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, json: await mfa.beginSetup(row) };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/mfa/totp/confirm',
        operation: 'mfa_totp_confirm',
        summary: 'Turn two-factor on with a first code; answers the recovery codes, once',
        dependencies: [authenticated],
      },
      async (req) => {
        const { code } = stringFields(req, ['code']);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-store' },
          json: { recovery_codes: await mfa.confirmSetup((await caller(req)).row, code) },
        };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/mfa/totp/disable',
        operation: 'mfa_totp_disable',
        summary: 'Turn two-factor off with a code (authenticator or recovery)',
        dependencies: [authenticated],
      },
      async (req) => {
        const { code } = stringFields(req, ['code']);
        await mfa.disable((await caller(req)).row, code);
        return { status: 200, json: { message: 'Two-factor authentication disabled' } };
      },
    ),

    route(
      {
        method: 'POST',
        path: '/mfa/recovery-codes/regenerate',
        operation: 'mfa_recovery_codes_regenerate',
        summary: 'New recovery codes (the old ones stop working)',
        dependencies: [authenticated],
      },
      async (req) => {
        const { code } = stringFields(req, ['code']);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-store' },
          json: { recovery_codes: await mfa.regenerate((await caller(req)).row, code) },
        };
      },
    ),
  ];
}

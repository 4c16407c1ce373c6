import { BadRequestError, type NeutralRequest, type NeutralResult } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import { completeSignIn, type SecondFactor } from '../sign-in';
import { newTotpSecret } from './totp';
import type { TwoFactor } from './two-factor';

type Row = Record<string, unknown>;

export const BAD_CHALLENGE = 'Invalid or expired challenge';
export const NOT_A_SETUP = 'This challenge needs a code from the enrolled authenticator, not a setup';
const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * Two-factor as the sign-in step and sudo see it: for an account with two-factor, or one
 * that must enroll, a sign-in answers the challenge object (finished at /mfa/verify).
 */
export function secondFactor(core: AccountCore, mfa: TwoFactor): SecondFactor {
  return {
    isEnabled: (row) => mfa.isEnabled(row),
    async checkCode(row, code) {
      await mfa.checkCode(row, code);
    },
    async challenge(row: Row, intent) {
      const enabled = await mfa.isEnabled(row);
      const setup = !enabled && mfa.isRequired(row);
      if (!enabled && !setup) return null;
      const now = core.now();
      const challenge = await mfa.challenges.create(
        {
          userId: String(core.users.idOf(row)),
          purpose: setup ? 'setup' : 'sign-in',
          intent,
          tokenVersion: core.users.tokenVersionOf(row),
          secret: setup ? await mfa.seal(row, newTotpSecret()) : null,
          expiresAt: now + mfa.challengeMs,
        },
        now,
      );
      const json: Record<string, unknown> = {
        mfa_required: true,
        challenge,
        expires_in: Math.floor(mfa.challengeMs / 1000),
      };
      if (setup) json.setup = true;
      return { status: 200, headers: NO_STORE, json } satisfies NeutralResult;
    },
  };
}

/**
 * `/mfa/verify`: the challenge's second factor, then the credential its sign-in would
 * have answered (plus `recovery_codes` after a required enrollment). 400 for a bad,
 * used or expired challenge (or one out of attempts), 401 for a wrong code.
 */
export async function verifyChallenge(
  core: AccountCore,
  mfa: TwoFactor,
  req: NeutralRequest,
  { challenge: token, code }: { challenge: string; code: string },
): Promise<NeutralResult> {
  const challenges = mfa.challenges;
  const record = validToken(token) ? await challenges.attempt(token, core.now()) : null;
  if (!record) throw new BadRequestError(BAD_CHALLENGE);
  const row = await core.users.findById(record.userId);
  // The account was deleted, or its password changed (every sign-in ended), since the first factor passed.
  if (!row || core.users.tokenVersionOf(row) !== record.tokenVersion) throw new BadRequestError(BAD_CHALLENGE);
  const enrolled =
    record.purpose === 'setup' && record.secret ? await mfa.enrollFromChallenge(row, record.secret, code) : null;
  if (!enrolled) await mfa.checkCode(row, code);
  if (!(await challenges.consume(token, core.now()))) throw new BadRequestError(BAD_CHALLENGE);
  const result = await completeSignIn(core, req, row, record.intent);
  return enrolled ? { ...result, json: { ...(result.json as object), recovery_codes: enrolled } } : result;
}

/** `/mfa/challenge`: the secret and URI of a live setup challenge, for the authenticator app. */
export async function setupChallengeDetails(
  core: AccountCore,
  mfa: TwoFactor,
  token: string,
): Promise<Record<string, unknown>> {
  const record = validToken(token) ? await mfa.challenges.peek(token, core.now()) : null;
  if (!record) throw new BadRequestError(BAD_CHALLENGE);
  if (record.purpose !== 'setup' || !record.secret) throw new BadRequestError(NOT_A_SETUP);
  const row = await core.users.findById(record.userId);
  if (!row) throw new BadRequestError(BAD_CHALLENGE);
  return {
    setup: mfa.setupDetails(row, await mfa.open(row, record.secret)),
    expires_in: Math.max(0, Math.floor((record.expiresAt - core.now()) / 1000)),
  };
}

// Challenge tokens are 43 base64url characters: anything far from that is refused before any lookup.
function validToken(token: string): boolean {
  return token.length > 0 && token.length <= 128;
}

import { BadRequestError, type NeutralRequest, type NeutralResult } from '@crudsmith/core';
import type { AccountCore } from './account-core';
import type { SignInIntent } from './mfa/challenges';
import { newTotpSecret } from './mfa/totp';
import type { TwoFactor } from './mfa/two-factor';

type Row = Record<string, unknown>;

export const BAD_CHALLENGE = 'Invalid or expired challenge';
export const NOT_A_SETUP = 'This challenge needs a code from the enrolled authenticator, not a setup';
const NO_STORE = { 'Cache-Control': 'no-store' };

/** The last step of a sign-in whose first factor passed: see `signInStep`. */
export type FinishSignIn = (req: NeutralRequest, row: Row, intent: SignInIntent) => Promise<NeutralResult>;

/**
 * A sign-in whose first factor passed (a password at /login or /token, a provider at an
 * OAuth callback) ends here: for an account with two-factor, or one that must enroll,
 * it answers the challenge object and no credential; otherwise the credential itself.
 * `mfa` is the second factor when the plugin is configured with one.
 */
export function signInStep(core: AccountCore, mfa: TwoFactor | null): FinishSignIn {
  return async (req, row, intent) => {
    if (!mfa) return completeSignIn(core, req, row, intent);
    const enabled = await mfa.isEnabled(row);
    const setup = !enabled && mfa.isRequired(row);
    if (!enabled && !setup) return completeSignIn(core, req, row, intent);
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
    return { status: 200, headers: NO_STORE, json };
  };
}

/**
 * Where a redirecting sign-in (an OAuth callback) sends the browser once the sign-in step
 * answered: `redirectTo`, or for a challenge `redirectTo#mfa_challenge=…&expires_in=…`
 * (`&setup=1` when the account must enroll). A fragment never reaches a server or a
 * Referer; the page reads it and posts the code to /mfa/verify.
 */
export function signInRedirect(redirectTo: string, answer: NeutralResult): string {
  const json = (answer.json ?? {}) as Record<string, unknown>;
  if (json.mfa_required !== true) return redirectTo;
  const fragment = new URLSearchParams({ mfa_challenge: String(json.challenge), expires_in: String(json.expires_in) });
  if (json.setup) fragment.set('setup', '1');
  return `${redirectTo.split('#')[0]}#${fragment.toString()}`;
}

/** The credential a sign-in started: a new session (cookies and `csrf_token`), or tokens. */
export async function completeSignIn(
  core: AccountCore,
  req: NeutralRequest,
  row: Row,
  intent: SignInIntent,
): Promise<NeutralResult> {
  const echo = intent.redirectTo ? { redirect_to: intent.redirectTo } : {};
  if (intent.transport === 'session') {
    const { cookies, csrfToken } = await core.startSession(req, row);
    return { status: 200, cookies, headers: NO_STORE, json: { csrf_token: csrfToken, ...echo } };
  }
  const { json, cookies } = await core.issueTokens(row, { scope: intent.scope ?? '', authTime: core.now() });
  return { status: 200, cookies, headers: NO_STORE, json: { ...json, ...echo } };
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

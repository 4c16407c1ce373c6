import type { NeutralRequest, NeutralResult } from '@crudsmith/core';
import type { AccountCore } from './account-core';
import type { SignInIntent } from './mfa/challenges';

type Row = Record<string, unknown>;

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The last step of a sign-in whose first factor passed: see `signInStep`. */
export type FinishSignIn = (req: NeutralRequest, row: Row, intent: SignInIntent) => Promise<NeutralResult>;

/** A second factor, as sign-in and sudo use it (two-factor authentication, `mfa/`). */
export interface SecondFactor {
  /** The challenge answer for an account with two-factor, or one that must enroll; null for any other. */
  challenge(row: Row, intent: SignInIntent): Promise<NeutralResult | null>;
  isEnabled(row: Row): Promise<boolean>;
  /** Checks a code (authenticator or recovery, each used once): 401 when wrong, counted by the lockout. */
  checkCode(row: Row, code: string): Promise<void>;
}

/**
 * A sign-in whose first factor passed (a password at /login or /token, a provider at an
 * OAuth callback) ends here: for an account with two-factor, or one that must enroll,
 * it answers the challenge object and no credential; otherwise the credential itself.
 * `mfa` is the second factor when the plugin is configured with one.
 */
export function signInStep(core: AccountCore, mfa: SecondFactor | null): FinishSignIn {
  return async (req, row, intent) => (await mfa?.challenge(row, intent)) ?? completeSignIn(core, req, row, intent);
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
    const { cookies, csrfToken } = await core.requireSession().start(req, row);
    return { status: 200, cookies, headers: NO_STORE, json: { csrf_token: csrfToken, ...echo } };
  }
  const { json, cookies } = await core
    .requireBearer()
    .issueTokens(row, { scope: intent.scope ?? '', authTime: core.now() });
  return { status: 200, cookies, headers: NO_STORE, json: { ...json, ...echo } };
}

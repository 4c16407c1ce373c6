import { ForbiddenError, UnauthorizedError, type Dependency, type NeutralRequest } from '@crudsmith/core';
import type { AccountCore, Credential } from './account-core';
import { credentialDependency } from './dependencies';
import { assertFreshSignIn } from './fresh-sign-in';
import type { SecondFactor } from './sign-in';
import type { AccountUser } from './options';

/** What `sudo.elevate` answers: until when, and for a bearer caller the token that carries it. */
export interface SudoGrant {
  expiresAt: Date;
  /** Bearer callers only: a new access token that carries the elevation. */
  accessToken?: string;
}

/** The sudo primitive: re-check the password or a second-factor code (or a fresh sign-in), then open a short window. */
export interface Sudo {
  /**
   * Elevates the caller for `sudoSeconds`. With `code` on an account with two-factor, the
   * code (authenticator or recovery, each used once) must be right (401; wrong codes lock
   * out like wrong passwords). Otherwise, with a password on the account, `password` must
   * be right (401, and it counts toward the lockout); without one, the sign-in must be
   * fresh (403). Session callers get the window stored in their session; bearer callers
   * get a new access token that carries it.
   */
  elevate(req: NeutralRequest, proof: { password?: string; code?: string }): Promise<SudoGrant>;
}

export function createSudo(
  core: AccountCore,
  mfa: SecondFactor | null,
): { sudo: Sudo; requireSudo: () => Dependency<AccountUser> } {
  const authenticated = credentialDependency(core, { optional: false });
  const sudo: Sudo = {
    async elevate(req, proof) {
      const credential = (await req.resolve(authenticated)) as Credential;
      const { users } = core;
      if (proof.code !== undefined && mfa && (await mfa.isEnabled(credential.row))) {
        await mfa.checkCode(credential.row, proof.code);
      } else if (credential.row[users.columns.passwordHash]) {
        await core.signIn('', proof.password ?? '', { row: credential.row, client: req.clientAddress });
      } else {
        assertFreshSignIn(core, credential);
      }
      const until = core.now() + core.sudoMs;
      if (credential.session) {
        credential.session.data.sudo_until = until;
        if (!(await core.requireSession().manager.save(credential.session)))
          throw new UnauthorizedError('Not authenticated');
        return { expiresAt: new Date(until) };
      }
      const accessToken = await core.requireBearer().accessToken(credential.row, {
        scope: credential.scopes.join(' '),
        authTime: credential.authTime,
        sudoUntil: until,
      });
      return { expiresAt: new Date(until), accessToken };
    },
  };
  const gate: Dependency<AccountUser> = async (req) => {
    const credential = (await req.resolve(authenticated)) as Credential;
    const until = credential.session
      ? Number(credential.session.data.sudo_until ?? 0)
      : (credential.claims?.sudo_until ?? 0) * 1000;
    if (!(until > core.now())) throw new ForbiddenError('Sudo mode required: confirm your password first');
    return core.publicUser(credential.row);
  };
  return { sudo, requireSudo: () => gate };
}

import { ForbiddenError, type Dependency } from '@crudsmith/core';
import type { AccountCore, Credential } from './account-core';
import { credentialDependency } from './dependencies';
import type { AccountUser } from './options';

export const STALE_SIGN_IN = 'Sign in again first: this needs a recent sign-in';

/** 403 unless the caller signed in (password, provider or second factor) within `freshSignInSeconds`. */
export function assertFreshSignIn(core: AccountCore, credential: Credential): void {
  if (core.now() - credential.authTime > core.freshSignInMs) throw new ForbiddenError(STALE_SIGN_IN);
}

/** Builds `requireFreshSignIn()`: a dependency answering the signed-in user, 401 without a sign-in and 403 when it is older than `freshSignInSeconds`. */
export function freshSignInGate(core: AccountCore): () => Dependency<AccountUser> {
  const authenticated = credentialDependency(core, { optional: false });
  const gate: Dependency<AccountUser> = async (req) => {
    const credential = (await req.resolve(authenticated)) as Credential;
    assertFreshSignIn(core, credential);
    return core.publicUser(credential.row);
  };
  return () => gate;
}

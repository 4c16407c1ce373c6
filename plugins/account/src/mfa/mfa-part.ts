import type { AccountCore } from '../account-core';
import { jsonBodiesOnly } from '../json-only';
import { withAccountDocs, type RouteDocPart } from '../openapi';
import type { AccountPart } from '../part';
import type { SecondFactor } from '../sign-in';
import { secondFactor } from './challenge-steps';
import { mfaDocs } from './docs';
import type { MfaOptions } from './mfa-options';
import { mfaRoutes } from './routes';
import { TwoFactor } from './two-factor';

/**
 * Two-factor's part, when `mfa` is set: the `/mfa` routes and tables, the docs of /login
 * and /token whose answer may be a challenge, and the second factor sign-in and sudo ask.
 */
export function mfaPart(
  core: AccountCore,
  option: MfaOptions | boolean | undefined,
  docs: Record<string, RouteDocPart>,
): AccountPart & { secondFactor: SecondFactor | null } {
  if (!option) return { routes: [], migrations: {}, secondFactor: null };
  const twoFactor = new TwoFactor(core, option === true ? {} : option);
  const own = mfaDocs(docs);
  return {
    routes: jsonBodiesOnly(withAccountDocs(mfaRoutes(core, twoFactor), { ...docs, ...own })),
    migrations: twoFactor.migrations(),
    docs: own,
    secondFactor: secondFactor(core, twoFactor),
  };
}

// Two-factor authentication, fresh sign-in and sudo: one app per adapter and engine with
// two-factor on (required for superusers), its tests grouped by area in ./mfa/.
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import type { AdapterHarness } from '../../adapters/conformance';
import type { ChallengeStore } from '@crudsmith/account';
import type { Engine } from '../../fixtures/db';
import { clock, startAccountApp, type AccountEnv } from './fixture';
import { challengeTests } from './mfa/challenge';
import { enrollmentTests } from './mfa/enrollment';
import { requiredTests } from './mfa/required';
import { sudoTests } from './mfa/sudo';

/** Registers the suite; `store` names another challenge store than the database's (Redis). */
export function mfaSuite(
  harness: AdapterHarness,
  engine: Engine,
  store?: { name: string; challengeStore: ChallengeStore },
): void {
  describe(`account: two-factor, fresh sign-in and sudo on ${harness.name} / ${engine}${store ? `, challenges in ${store.name}` : ''}`, () => {
    const suite = {} as { env: AccountEnv };
    beforeAll(async () => {
      suite.env = await startAccountApp(harness, engine, {
        mfa: { required: (user) => Boolean(user.is_superuser), challengeStore: store?.challengeStore },
      });
    });
    afterAll(async () => suite.env?.close());
    beforeEach(() => {
      clock.skew = 0;
    });

    enrollmentTests(suite);
    challengeTests(suite);
    requiredTests(suite);
    sudoTests(suite);
  });
}

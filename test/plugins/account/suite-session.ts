// Registration, sign-in and the session transport, with the attacks a reviewer tries:
// one app per adapter and engine, its tests grouped by route in ./session/.
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import type { AdapterHarness } from '../../adapters/conformance';
import type { Engine } from '../../fixtures/db';
import { clock, startAccountApp, type AccountEnv } from './fixture';
import { csrfAndMeTests } from './session/csrf';
import { loginTests } from './session/login';
import { managementTests } from './session/management';
import { passwordTests } from './session/passwords';
import { registrationTests } from './session/registration';

export function sessionSuite(harness: AdapterHarness, engine: Engine): void {
  describe(`account: registration and sessions on ${harness.name} / ${engine}`, () => {
    const suite = {} as { env: AccountEnv };
    beforeAll(async () => {
      suite.env = await startAccountApp(harness, engine);
    });
    afterAll(async () => suite.env?.close());
    beforeEach(() => {
      clock.skew = 0;
    });

    // In this order: later groups sign in as users the earlier ones created.
    registrationTests(suite);
    loginTests(suite);
    csrfAndMeTests(suite);
    managementTests(suite);
    passwordTests(suite);
  });
}

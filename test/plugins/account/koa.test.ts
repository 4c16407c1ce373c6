import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { bearerSuite } from './suite-bearer';
import { sessionSettingsSuite } from './session/settings';
import { sessionSuite } from './suite-session';
import { mfaSuite } from './suite-mfa';

// The account plugin over a real Koa server, on every engine the run has.
for (const engine of ENGINES) {
  sessionSuite(koaHarness, engine);
  bearerSuite(koaHarness, engine);
  sessionSettingsSuite(koaHarness, engine);
  mfaSuite(koaHarness, engine);
}

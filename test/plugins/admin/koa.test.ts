import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { signInArea } from './areas/sign-in';

// The admin over a real Koa server, on every engine the run has.
for (const engine of ENGINES) {
  signInArea(koaHarness, engine);
}

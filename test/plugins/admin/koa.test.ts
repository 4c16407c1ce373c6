import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { runAdminSuite } from './areas';

// The admin over a real Koa server, on every engine the run has.
runAdminSuite(koaHarness, ENGINES);

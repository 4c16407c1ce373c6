import { fastifyHarness } from '../../adapters/fastify-harness';
import { bearerSuite } from './suite-bearer';
import { sessionSettingsSuite } from './session/settings';
import { sessionSuite } from './suite-session';
import { mfaSuite } from './suite-mfa';

// The same account suites over a real Fastify server; the engines are covered on Koa, so SQLite here.
sessionSuite(fastifyHarness, 'sqlite');
bearerSuite(fastifyHarness, 'sqlite');
sessionSettingsSuite(fastifyHarness, 'sqlite');
mfaSuite(fastifyHarness, 'sqlite');

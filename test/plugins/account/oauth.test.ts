import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { oauthSuite } from './oauth/suite';

// OpenID Connect sign-in on every engine over Koa, and over Express and Fastify on SQLite.
for (const engine of ENGINES) oauthSuite(koaHarness, engine);
oauthSuite(expressHarness, 'sqlite');
oauthSuite(fastifyHarness, 'sqlite');

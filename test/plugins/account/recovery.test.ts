import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { recoverySuite } from './recovery/suite';

// E-mail verification, reset and change on every engine over Koa, and over Express and
// Fastify on SQLite; mail through a real SMTP server or the outbox, both on each adapter.
for (const engine of ENGINES) recoverySuite(koaHarness, engine, engine === 'sqlite' ? 'smtp' : 'outbox');
recoverySuite(expressHarness, 'sqlite', 'outbox');
recoverySuite(fastifyHarness, 'sqlite', 'smtp');

import { fastifyHarness } from '../../adapters/fastify-harness';
import { runAdminSuite } from './areas';

// The same admin areas over a real Fastify server; the engines are covered on Koa, so SQLite here.
runAdminSuite(fastifyHarness, ['sqlite']);

import { fastifyHarness } from '../adapters/fastify-harness';
import { runCrudSuite } from './crud-suite';

runCrudSuite(fastifyHarness);

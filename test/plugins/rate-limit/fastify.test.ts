import { fastifyHarness } from '../../adapters/fastify-harness';
import { rateLimitHttpSuite } from './suite-http';

// The rate-limit plugin over a real Fastify server.
rateLimitHttpSuite(fastifyHarness);

import { koaHarness } from '../../adapters/koa-harness';
import { rateLimitHttpSuite } from './suite-http';

// The rate-limit plugin over a real Koa server.
rateLimitHttpSuite(koaHarness);

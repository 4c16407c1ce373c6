import { expressHarness } from '../../adapters/express-harness';
import { rateLimitHttpSuite } from './suite-http';

// The rate-limit plugin over a real Express server.
rateLimitHttpSuite(expressHarness);

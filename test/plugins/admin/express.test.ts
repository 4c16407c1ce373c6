import { expressHarness } from '../../adapters/express-harness';
import { runAdminSuite } from './areas';

// The same admin areas over a real Express server; the engines are covered on Koa, so SQLite here.
runAdminSuite(expressHarness, ['sqlite']);

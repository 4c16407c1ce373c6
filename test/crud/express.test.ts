import { expressHarness } from '../adapters/express-harness';
import { runCrudSuite } from './crud-suite';

runCrudSuite(expressHarness);

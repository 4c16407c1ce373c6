import { koaHarness } from '../adapters/koa-harness';
import { runCrudSuite } from './crud-suite';

runCrudSuite(koaHarness);

import { koaHarness } from '../adapters/koa-harness';
import { runCrudSuiteOnReplica } from './crud-suite';

// The CRUD suite with its reads on a streaming replica, on Koa (the suite is the same on
// every adapter; the routing to the replica lives in core).
runCrudSuiteOnReplica(koaHarness);

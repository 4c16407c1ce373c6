import { describe } from 'vitest';
import { publishedPackages } from './published';
import { useUserProject } from './user-project';
import { quickStartCase } from './cases/quick-start';
import { existingAppCase } from './cases/existing-app';
import { expressEsmCase } from './cases/express-esm';
import { fastifyAccountCase } from './cases/fastify-account';
import { redisEntriesCase } from './cases/redis-entries';
import { clientCase } from './cases/client';

// The packages as a user gets them: built, packed, installed from the tarballs into a
// project outside the repository, compiled with plain tsc and run with plain node. One
// file, so the project is built and installed once (minutes); each consumer's case is a
// module of its own in cases/, its source in consumers/.
const env = useUserProject();

// Each case compiles or runs whole programs; under `npm test` it shares the CPUs with every other suite.
describe('the published packages', { timeout: 180_000 }, () => publishedPackages(env));

describe('consumers compiled with plain tsc and run with plain node', { timeout: 180_000 }, () => {
  quickStartCase(env);
  existingAppCase(env);
  expressEsmCase(env);
  fastifyAccountCase();
  redisEntriesCase();
  // Serves the Express consumer's app, which it compiles itself when run alone.
  clientCase(env);
});

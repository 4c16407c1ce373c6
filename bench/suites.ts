import { httpSuite } from './http';
import { httpTaughtSuite } from './http-taught';
import { repositorySuite } from './repository';
import { versioningSuite } from './versioning';
import { rateLimitSuite } from './rate-limit';
import { peersSuite } from './peers';
import { adminSuite } from './admin';
import { severalMachinesSuite } from './several-machines';
import { exportMemorySuite } from './export-memory';
import type { Suite } from './lib/suite';

/** Every suite of `npm run bench`, in the order it runs them. */
export const suites: Suite<any>[] = [
  repositorySuite,
  versioningSuite,
  httpSuite,
  httpTaughtSuite,
  peersSuite,
  rateLimitSuite,
  adminSuite,
  severalMachinesSuite,
  exportMemorySuite,
];

import { expressHarness } from '../../adapters/express-harness';
import { bearerSuite } from './suite-bearer';
import { sessionSettingsSuite } from './session/settings';
import { sessionSuite } from './suite-session';
import { mfaSuite } from './suite-mfa';

// The same account suites over a real Express server; the engines are covered on Koa, so SQLite here.
sessionSuite(expressHarness, 'sqlite');
bearerSuite(expressHarness, 'sqlite');
sessionSettingsSuite(expressHarness, 'sqlite');
mfaSuite(expressHarness, 'sqlite');

import { expressHarness } from '../../adapters/express-harness';
import { bulkDeleteArea } from './areas/bulk-delete';
import { crudApiArea } from './areas/crud-api';
import { csrfArea } from './areas/csrf';
import { eventsArea } from './areas/events';
import { formsArea } from './areas/forms';
import { labelsArea } from './areas/labels';
import { managementArea } from './areas/management';
import { modelDeclarationArea } from './areas/model-declaration';
import { pagesArea } from './areas/pages';
import { prefixArea } from './areas/prefix';
import { signInArea } from './areas/sign-in';
import { trashArea } from './areas/trash';
import { unlockArea } from './areas/unlock';

// The same admin areas over a real Express server; the engines are covered on Koa, so SQLite here.
signInArea(expressHarness, 'sqlite');
csrfArea(expressHarness, 'sqlite');
pagesArea(expressHarness, 'sqlite');
formsArea(expressHarness, 'sqlite');
bulkDeleteArea(expressHarness, 'sqlite');
managementArea(expressHarness, 'sqlite');
crudApiArea(expressHarness, 'sqlite');
eventsArea(expressHarness, 'sqlite');
trashArea(expressHarness, 'sqlite');
unlockArea(expressHarness, 'sqlite');
prefixArea(expressHarness, 'sqlite');
modelDeclarationArea(expressHarness, 'sqlite');
labelsArea(expressHarness, 'sqlite');

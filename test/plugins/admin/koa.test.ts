import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
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

// The admin over a real Koa server, on every engine the run has.
for (const engine of ENGINES) {
  signInArea(koaHarness, engine);
  csrfArea(koaHarness, engine);
  pagesArea(koaHarness, engine);
  formsArea(koaHarness, engine);
  bulkDeleteArea(koaHarness, engine);
  managementArea(koaHarness, engine);
  crudApiArea(koaHarness, engine);
  eventsArea(koaHarness, engine);
  trashArea(koaHarness, engine);
  unlockArea(koaHarness, engine);
  prefixArea(koaHarness, engine);
  modelDeclarationArea(koaHarness, engine);
  labelsArea(koaHarness, engine);
}

// The admin suite: every area, on one adapter, on each engine given. Each adapter's admin
// test file runs it.
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { bulkDeleteArea } from './bulk-delete';
import { crudApiArea } from './crud-api';
import { csrfArea } from './csrf';
import { csvArea } from './csv';
import { eventsArea } from './events';
import { filtersArea } from './filters';
import { formsArea } from './forms';
import { labelsArea } from './labels';
import { managementArea } from './management';
import { modelDeclarationArea } from './model-declaration';
import { pagesArea } from './pages';
import { prefixArea } from './prefix';
import { relationsArea } from './relations';
import { signInArea } from './sign-in';
import { trashArea } from './trash';
import { unlockArea } from './unlock';

const areas = [
  signInArea,
  csrfArea,
  pagesArea,
  filtersArea,
  formsArea,
  bulkDeleteArea,
  csvArea,
  managementArea,
  crudApiArea,
  eventsArea,
  trashArea,
  unlockArea,
  prefixArea,
  modelDeclarationArea,
  labelsArea,
  relationsArea,
];

/** Runs every admin area over `harness`, once per engine in `engines`. */
export function runAdminSuite(harness: AdapterHarness, engines: readonly Engine[]): void {
  for (const engine of engines) for (const area of areas) area(harness, engine);
}

import { fastifyHarness } from '../../adapters/fastify-harness';
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

// The same admin areas over a real Fastify server; the engines are covered on Koa, so SQLite here.
signInArea(fastifyHarness, 'sqlite');
csrfArea(fastifyHarness, 'sqlite');
pagesArea(fastifyHarness, 'sqlite');
formsArea(fastifyHarness, 'sqlite');
bulkDeleteArea(fastifyHarness, 'sqlite');
managementArea(fastifyHarness, 'sqlite');
crudApiArea(fastifyHarness, 'sqlite');
eventsArea(fastifyHarness, 'sqlite');
trashArea(fastifyHarness, 'sqlite');
unlockArea(fastifyHarness, 'sqlite');
prefixArea(fastifyHarness, 'sqlite');
modelDeclarationArea(fastifyHarness, 'sqlite');
labelsArea(fastifyHarness, 'sqlite');

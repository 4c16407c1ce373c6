import type { Dependency, HttpMethod } from '../http/neutral';
import type { RouteDescriptor, RouteDoc } from '../http/route';
import { schemaToJsonSchema } from '../schema/json-schema';
import { answerSchema, createAnswersRow } from './answer-schema';
import type { BulkConfig } from './bulk-options';
import type { BulkOperation } from './options';
import { bulkCreateHandler, bulkDeleteHandler, bulkUpdateHandler, upsertHandler } from './bulk-operations';
import type { CrudContext } from './crud-context';
import type { CrudOptions } from './options';
import { keyPath } from './path-key';
import { errors, idParameters } from './route-docs';
import { accessDoc, accessDocOfAll } from '../access/access-doc';
import type { AccessOperation } from '../access/policy';

// The routes of the bulk operations: `POST|PATCH|DELETE {path}/bulk` and `PUT {path}/{id}`.
// Each runs the dependencies of the single-row operation it generalises, and obeys its
// access rule (an upsert both the create's and the update's).

const ACCESS_OF: Record<BulkOperation, AccessOperation[]> = {
  create: ['create'],
  update: ['update'],
  delete: ['delete'],
  upsert: ['create', 'update'],
};

const COUNT = { type: 'object', required: ['count'], properties: { count: { type: 'integer', minimum: 0 } } };
const PREFER = {
  name: 'Prefer',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: '`max-affected=N`: refuse with 400, changing nothing, when more than N rows would change',
};

/** The bulk routes of one router, mounted under `path`, named after `name`. */
export function bulkRoutes(
  ctx: CrudContext,
  bulk: BulkConfig,
  options: CrudOptions,
  base: { path: string; name: string; tags: string[] },
): RouteDescriptor[] {
  const createDeps = options.createDeps ?? [];
  const updateDeps = options.updateDeps ?? [];
  const item = answerSchema(ctx);
  const answered = createAnswersRow(ctx) ? item : { type: ['object', 'null'] };
  const createBody = () =>
    schemaToJsonSchema(ctx.createSchema!, { info: ctx.info, exclude: ctx.createConfig.forbidden });
  const filterBody = {
    type: 'object',
    description: 'The keys the list takes in its query, with their values',
    additionalProperties: true,
  };
  const routes: RouteDescriptor[] = [];
  const add = (
    op: BulkOperation,
    route: { method: HttpMethod; path: string; deps: Dependency[]; handler: RouteDescriptor['handler'] },
    doc: Omit<RouteDoc, 'operationId' | 'tags'>,
  ) => {
    const { method, path, deps, handler } = route;
    if (!bulk.operations.has(op)) return;
    const operationId = `${base.name}_${op === 'upsert' ? 'upsert' : `bulk_${op}`}`;
    const access = accessDocOfAll(ctx.repo.policy, ACCESS_OF[op]);
    routes.push({
      method,
      path,
      operation: operationId,
      dependencies: [...new Set(deps)],
      handler,
      doc: { operationId, tags: base.tags, ...doc, ...access },
    });
  };
  const conflictNote = bulk.operations.has('upsert')
    ? [
        {
          name: 'on_conflict',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: [...bulk.conflictColumns] },
          description: [
            'Update the row that already holds the item’s value of this unique column',
            ...onConflictRule(ctx),
          ].join('. '),
        },
      ]
    : [];
  add(
    'create',
    { method: 'POST', path: `${base.path}/bulk`, deps: createDeps, handler: bulkCreateHandler(ctx, bulk, updateDeps) },
    {
      summary: `bulk create ${base.name}`,
      parameters: conflictNote,
      requestBody: { type: 'array', maxItems: bulk.maxItems, items: createBody() },
      responses: {
        '201': { description: 'Created, in the order given', schema: { type: 'array', items: answered } },
        ...errors(409, 413, 422),
      },
    },
  );
  add(
    'update',
    { method: 'PATCH', path: `${base.path}/bulk`, deps: updateDeps, handler: bulkUpdateHandler(ctx, bulk) },
    {
      summary: `bulk update ${base.name}`,
      parameters: [PREFER],
      requestBody: {
        type: 'object',
        required: ['filter', 'set'],
        properties: {
          filter: filterBody,
          set: schemaToJsonSchema(ctx.updateSchema!, { info: ctx.info, exclude: ctx.updateConfig.forbidden }),
        },
      },
      responses: { '200': { description: 'How many rows changed', schema: COUNT }, ...errors(409, 422) },
    },
  );
  add(
    'delete',
    {
      method: 'DELETE',
      path: `${base.path}/bulk`,
      deps: options.deleteDeps ?? [],
      handler: bulkDeleteHandler(ctx, bulk),
    },
    {
      summary: `bulk delete ${base.name}`,
      parameters: [PREFER],
      requestBody: {
        type: 'object',
        properties: { ids: { type: 'array', minItems: 1, maxItems: bulk.maxItems }, filter: filterBody },
        description: 'Either ids or filter',
      },
      responses: { '200': { description: 'How many rows were deleted', schema: COUNT }, ...errors(422) },
    },
  );
  add(
    'upsert',
    {
      method: 'PUT',
      path: [base.path, keyPath(ctx.info)].join('/'),
      deps: [...createDeps, ...updateDeps],
      handler: upsertHandler(ctx, updateDeps),
    },
    {
      summary: `create or replace ${base.name}`,
      parameters: idParameters(ctx),
      requestBody: createBody(),
      responses: {
        '200': { description: 'Replaced', schema: answered },
        '201': { description: 'Created', schema: answered },
        // A key no row can have (past the column's range, say) is not found, as on the other id routes.
        ...errors(404, 409, 422),
      },
    },
  );
  return routes;
}

/** What `on_conflict` adds to the create rule of `POST /bulk`: the update rule, which the caller must pass too. */
function onConflictRule(ctx: CrudContext): string[] {
  const update = accessDoc(ctx.repo.policy, 'update').extensions;
  if (!update) return [];
  const [permissions, roles] = [update['x-crudsmith-permissions'], update['x-crudsmith-roles']] as string[][];
  const any = [...permissions.map((name) => `permission ${name}`), ...roles.map((name) => `role ${name}`)];
  return [`The caller must also pass the update rule${any.length > 0 ? ` (any one of: ${any.join(', ')})` : ''}`];
}

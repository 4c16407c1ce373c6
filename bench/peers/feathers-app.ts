import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { feathers, type HookContext } from '@feathersjs/feathers';
import { bodyParser, errorHandler, koa, rest } from '@feathersjs/koa';
import { KnexService } from '@feathersjs/knex';
import { addFormats, Ajv, hooks as schemaHooks, resolve, type FormatsPluginOptions } from '@feathersjs/schema';
import { getValidator, querySyntax, Type, type Static } from '@feathersjs/typebox';

// Feathers 5 as its guide and its generator teach a knex-backed service: TypeBox schemas
// for the item, its data, patch and query, validated with Ajv by schema hooks, resolvers
// stamping created_at and updated_at, KnexService with pagination, on @feathersjs/koa.
// Soft delete, which Feathers does not have, is the hook a user adds: live rows only.

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const itemSchema = Type.Object(
  {
    id: Type.Number(),
    name: nullable(Type.String({ maxLength: 100 })),
    description: nullable(Type.String()),
    category: nullable(Type.String({ maxLength: 50 })),
    price: Type.Union([Type.Number(), Type.Null()]),
    last_sold: nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: nullable(Type.String({ format: 'date-time' })),
    is_deleted: Type.Boolean(),
  },
  { $id: 'Item', additionalProperties: false },
);
type Item = Static<typeof itemSchema>;

const itemDataSchema = Type.Partial(Type.Pick(itemSchema, ['name', 'description', 'category', 'price', 'last_sold']), {
  $id: 'ItemData',
  additionalProperties: false,
});
type ItemData = Static<typeof itemDataSchema>;
const itemPatchSchema = Type.Partial(itemDataSchema, { $id: 'ItemPatch' });
const itemQuerySchema = Type.Intersect(
  [
    querySyntax(Type.Pick(itemSchema, ['id', 'category', 'price', 'is_deleted'])),
    Type.Object({}, { additionalProperties: false }),
  ],
  { additionalProperties: false },
);

// The generated app's validators.ts.
const formats: FormatsPluginOptions = [
  'date-time',
  'time',
  'date',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'uuid',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex',
];
const dataValidator = addFormats(new Ajv({}), formats);
const queryValidator = addFormats(new Ajv({ coerceTypes: true }), formats);

const validateQuery = schemaHooks.validateQuery(getValidator(itemQuerySchema, queryValidator));
const validateData = schemaHooks.validateData(getValidator(itemDataSchema, dataValidator));
const validatePatch = schemaHooks.validateData(getValidator(itemPatchSchema, dataValidator));

const itemDataResolver = resolve<Item & { created_at: Date }, HookContext>({
  created_at: async () => new Date(),
} as never);
const itemPatchResolver = resolve<Item & { updated_at: Date }, HookContext>({
  updated_at: async () => new Date(),
} as never);

/** Live rows only: the soft-delete flag in every query the service runs. */
function liveRowsOnly(context: HookContext): void {
  context.params.query = { ...context.params.query, is_deleted: false };
}

/** Starts the Feathers app, its `items` service on `knex`, on 127.0.0.1. */
export async function startFeathers(knex: Knex): Promise<{ server: Server; close(): Promise<void> }> {
  const app = koa(feathers());
  app.use(errorHandler());
  app.use(bodyParser());
  app.configure(rest());
  app.use(
    'items',
    new KnexService<Item, ItemData>({ Model: knex, name: 'items', id: 'id', paginate: { default: 10, max: 1000 } }),
    {
      methods: ['find', 'get', 'create', 'patch'],
    },
  );
  app.service('items').hooks({
    around: {
      all: [validateQuery],
      create: [validateData, schemaHooks.resolveData(itemDataResolver)],
      patch: [validatePatch, schemaHooks.resolveData(itemPatchResolver)],
    },
    before: { find: [liveRowsOnly], get: [liveRowsOnly], patch: [liveRowsOnly] },
  });
  const server = await app.listen(0, '127.0.0.1');
  if (!server.listening) await new Promise((done) => server.once('listening', done));
  return { server, close: () => new Promise<void>((done) => server.close(() => done())) };
}

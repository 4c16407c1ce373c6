import { describe, expect, it } from 'vitest';
import { generateModule } from '@crudsmith/client/generate';

// The generator's custom routes on a small document: grouped by tag (merged into the
// resource of the same name), named from the operationId, `$ref`s inlined, the account
// plugin's routes and bodies neither JSON nor multipart left out; a multipart body typed as
// its parts, files as Blob.

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const row = { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } };
const doc = {
  info: { title: 'test', version: 'v1' },
  components: { schemas: { Tier: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
  paths: {
    '/items': {
      post: { 'x-crudsmith-crud': { resource: 'items', operation: 'create' }, responses: { 201: json(row) } },
    },
    '/items/{id}': {
      put: {
        operationId: 'items_upsert',
        tags: ['items'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: json({ type: 'object', properties: { name: { type: 'string' } } }),
        responses: { 200: json(row), 201: json(row) },
      },
    },
    '/items/again': { post: { operationId: 'items_create', tags: ['items'], responses: { 204: {} } } },
    '/tiers/{name}': {
      get: {
        operationId: 'tiers_read',
        tags: ['tiers'],
        parameters: [
          { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'full', in: 'query', schema: { type: 'boolean' } },
        ],
        responses: { 200: json({ $ref: '#/components/schemas/Tier' }) },
      },
    },
    '/avatar': {
      post: {
        operationId: 'avatar',
        tags: ['users'],
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: {
                  file: { type: 'string', format: 'binary' },
                  more: { type: 'array', items: { type: 'string', format: 'binary' } },
                  caption: { type: 'string' },
                },
              },
            },
          },
        },
        responses: { 204: {} },
      },
    },
    '/import': { post: { operationId: 'import', tags: ['users'], requestBody: { content: { 'text/csv': {} } } } },
    '/auth/login': { post: { operationId: 'account_login', tags: ['auth'] } },
    '/auth/me': { get: { operationId: 'account_me', tags: ['auth'] } },
  },
};

describe('the generator on custom routes', () => {
  it('types each route and groups it, the same bytes each time', () => {
    const text = generateModule(doc);
    expect(generateModule(structuredClone(doc))).toBe(text);
    expect(text).toContain(
      'upsert: operation<ItemsUpsertOp>(http, \'PUT\', "/items/{id}", { params: true, body: true }),',
    );
    expect(text).toContain('itemsCreate: operation<ItemsItemsCreateOp>(http, \'POST\', "/items/again"),');
    expect(text).toContain('read: operation<TiersReadOp>(http, \'GET\', "/tiers/{name}", { params: true }),');
    expect(text).toMatch(
      /export interface TiersReadOp \{\n {2}params: \{\n {4}name: string;\n {2}\};\n {2}query: \{\n {4}full\?: boolean;\n {2}\};\n {2}answer: \{\n {4}name: string;\n {2}\};\n\}/,
    );
    expect(text).toMatch(/export interface ItemsItemsCreateOp \{\n {2}answer: null;\n\}/);
    expect(text).toContain('avatar: operation<UsersAvatarOp>(http, \'POST\', "/avatar", { body: true, form: true }),');
    expect(text).toMatch(
      /export interface UsersAvatarOp \{\n {2}body: \{\n {4}file: Blob;\n {4}more\?: Blob\[\];\n {4}caption\?: string;\n {2}\} \| FormData;\n {2}answer: null;\n\}/,
    );
    expect(text).not.toMatch(/"\/import"|accountMe|account_login/);
  });
});

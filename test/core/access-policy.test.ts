// A model's access policy outside HTTP: policyOf, the startup check, the repository given
// a principal (as a hand-written route uses it), and what the OpenAPI document says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Model } from 'objection';
import {
  Access,
  ConfigurationError,
  CrudRepository,
  crudRouter,
  ForbiddenError,
  NotFoundError,
  permits,
  policyOf,
  UnauthorizedError,
  ValidationError,
  rowOnlyFields,
  withheldFields,
  type AccessPolicy,
  type Principal,
} from '@crudsmith/core';
import { buildOpenApiDocument } from '@crudsmith/versioning';
import { openDatabase, type TestDatabase } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';
import { ItemCreate, ItemUpdate } from '../crud/schemas';
import { seedItems, seedLibrary } from '../fixtures/seed';

const who = (id: string, extra: Partial<Principal> = {}): Principal => ({
  id,
  tierId: null,
  isSuperuser: false,
  scopes: [],
  transport: 'bearer',
  ...extra,
});

// A principal named after a category sees that category's items, without their description.
const POLICY: AccessPolicy = {
  default: {},
  read: { rows: { category: (p: Principal) => p.id }, fields: { except: ['description'] } },
  list: { rows: { category: (p: Principal) => p.id }, fields: { except: ['description'] } },
  update: { rows: { name: 'Alpha' } },
  create: { fields: ['name', 'category'], rows: { category: (p: Principal) => p.id } },
  restore: { roles: ['admin'] },
  hardDelete: { permissions: ['items:purge'] },
};

describe('policyOf and the startup check', () => {
  it('answers the effective rules of a decorated model, default spread over the operations it leaves out', () => {
    @Access({ default: { roles: ['member'] }, delete: { roles: ['admin'] } })
    class Note extends Model {
      static override tableName = 'notes';
      static override jsonSchema = { type: 'object', properties: { id: { type: 'integer' } } };
    }
    const policy = policyOf(Note)!;
    expect(policy.delete).toEqual({ roles: ['admin'] });
    expect(policy.read).toEqual({ roles: ['member'] });
    expect(Object.keys(policy)).toEqual(['create', 'read', 'list', 'update', 'delete', 'restore', 'hardDelete']);
    expect(policyOf(Item)).toBeUndefined();
  });

  it('permits and withheldFields answer what an interface may offer a caller', () => {
    const { policy, info } = new CrudRepository(Item, { access: POLICY });
    expect(permits(policy, 'restore', who('tools'))).toBe(false);
    expect(permits(policy, 'restore', who('tools', { roles: ['admin'] }))).toBe(true);
    expect(permits(policy, 'hardDelete', who('tools', { permissions: ['items:purge'] }))).toBe(true);
    expect(permits(policy, 'read', null)).toBe(false);
    expect(permits(undefined, 'delete', null)).toBe(true);
    expect(permits(policy, 'restore', who('tools', { isSuperuser: true }))).toBe(true);
    expect([...withheldFields(policy, info, 'list', who('tools'))]).toEqual(['description']);
    expect(withheldFields(policy, info, 'create', who('tools')).has('name')).toBe(false);
    expect(withheldFields(policy, info, 'create', who('tools')).has('description')).toBe(true);
    expect(withheldFields(policy, info, 'list', who('tools', { isSuperuser: true })).size).toBe(0);
    // A field shown on some rows only is withheld from the whole operation; one shown on every row is not.
    const shownOnSome = new CrudRepository(Item, {
      access: { list: { rowFields: { category: (p: Principal) => p.id === 'all' || ((row) => row.name === p.id) } } },
    });
    expect([...withheldFields(shownOnSome.policy, shownOnSome.info, 'list', who('tools'))]).toEqual(['category']);
    expect(withheldFields(shownOnSome.policy, shownOnSome.info, 'list', who('all')).size).toBe(0);
    // Of the withheld fields, those shown on some rows: an interface shows them there, but never sorts on them.
    expect([...rowOnlyFields(shownOnSome.policy, shownOnSome.info, 'list', who('tools'))]).toEqual(['category']);
    expect(rowOnlyFields(shownOnSome.policy, shownOnSome.info, 'list', who('all')).size).toBe(0);
    expect(rowOnlyFields(shownOnSome.policy, shownOnSome.info, 'read', who('tools')).size).toBe(0);
    // A field the field set leaves out is hidden on every row, whatever its per-row rule says.
    const leftOut = new CrudRepository(Item, {
      access: { list: { fields: { except: ['category'] }, rowFields: { category: () => () => true } } },
    });
    expect(rowOnlyFields(leftOut.policy, leftOut.info, 'list', who('tools')).size).toBe(0);
  });

  it('fails at startup naming unknown columns of row rules and field sets, and unknown operations', () => {
    const bad: AccessPolicy = {
      read: {
        rows: { colour: 'red', _or: { size__gt: 1, name: 'x' } },
        fields: { except: ['weight'] },
        rowFields: { height: () => true },
      },
    };
    expect(() => new CrudRepository(Item, { access: bad })).toThrow(
      new ConfigurationError(
        'Access policy of Item names unknown column(s): read.rows: colour, read.rows: size, read.fields: weight, read.rowFields: height',
      ),
    );
    expect(() =>
      crudRouter({ session: () => undefined as never, model: Item, access: { browse: {} } as AccessPolicy }),
    ).toThrow(/Access policy of Item: unknown operation\(s\) browse/);
  });

  it('documents the bulk routes of a model with a policy by the rules of the operations they generalise, all of them for an upsert', () => {
    const router = crudRouter({
      session: () => undefined as never,
      model: Item,
      createSchema: ItemCreate,
      updateSchema: ItemUpdate,
      access: { create: { roles: ['maker'] }, update: { permissions: ['items:update'] } },
      bulk: true,
    });
    const doc = (operation: string) => router.routes.find((route) => route.operation.endsWith(operation))!.doc!;
    expect(doc('bulk_create').extensions).toEqual({ 'x-crudsmith-permissions': [], 'x-crudsmith-roles': ['maker'] });
    // An upsert needs both rules, each by any one of its own permissions and roles.
    expect(doc('upsert')).toMatchObject({
      requiresPrincipal: true,
      extensions: {
        'x-crudsmith-all-of': [
          { operation: 'create', 'x-crudsmith-permissions': [], 'x-crudsmith-roles': ['maker'] },
          { operation: 'update', 'x-crudsmith-permissions': ['items:update'], 'x-crudsmith-roles': [] },
        ],
      },
    });
    expect(doc('upsert').extensions).not.toHaveProperty('x-crudsmith-permissions');
    expect(doc('bulk_create').parameters?.[0]?.description).toMatch(
      /must also pass the update rule \(any one of: permission items:update\)/,
    );
    expect(doc('bulk_delete').requiresPrincipal).toBeUndefined();
  });
});

describe('CrudRepository given a principal', () => {
  let db: TestDatabase;
  let items: CrudRepository<typeof Item>;
  const tools = who('tools');

  beforeAll(async () => {
    db = await openDatabase('sqlite');
    await createSchema(db.knex);
    await seedItems(db.knex);
    items = new CrudRepository(Item, { access: POLICY });
  });
  afterAll(() => db?.destroy());

  it('lists, counts and reads only rows in scope, without the hidden fields; anonymous is a 401', async () => {
    const page = await items.getMulti(db.knex, { principal: tools, sortColumns: 'id' });
    expect(page.data.map((row) => row.id)).toEqual([1, 2]);
    expect(page.total_count).toBe(2);
    expect(page.data[0]).not.toHaveProperty('description');
    expect(await items.count(db.knex, {}, { principal: tools })).toBe(2);
    expect(await items.get(db.knex, { id: 3 }, { principal: tools })).toBeNull();
    await expect(items.getMulti(db.knex, { principal: null })).rejects.toBeInstanceOf(UnauthorizedError);
    const all = await items.getMulti(db.knex, { principal: who('root', { isSuperuser: true }) });
    expect([all.total_count, typeof all.data[0].description]).toEqual([6, 'string']);
  });

  it('writes only rows in scope: 403 readable but out of the rule, 404 unreadable, 422 an unwritable field', async () => {
    await expect(items.update(db.knex, { price: 1 }, { filters: { id: 2 }, principal: tools })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(items.update(db.knex, { price: 1 }, { filters: { id: 3 }, principal: tools })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await items.update(db.knex, { price: 2 }, { filters: { id: 1 }, principal: tools });
    const refused = items.create(db.knex, { name: 'Kappa', price: 3 }, { principal: tools });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ detail: [{ loc: ['body', 'price'] }] });
    expect(await db.knex('items').where({ name: 'Kappa' }).first()).toBeUndefined();
    // The created row must meet the create rule's rows: checked in the insert's transaction.
    const outside = items.create(db.knex, { name: 'Kappa', category: 'garden' }, { principal: tools });
    await expect(outside).rejects.toBeInstanceOf(ForbiddenError);
    expect(await db.knex('items').where({ name: 'Kappa' }).first()).toBeUndefined();
    const made = await items.create(db.knex, { name: 'Kappa', category: 'tools' }, { principal: tools });
    expect(made).toMatchObject({ name: 'Kappa', category: 'tools' });
    expect(made).not.toHaveProperty('description');
  });

  it('restore and hard delete follow their own who-may rules; answers leave hidden fields out', async () => {
    await items.delete(db.knex, { id: 2 }, { principal: tools });
    await expect(items.restore(db.knex, { id: 2 }, { principal: tools })).rejects.toBeInstanceOf(ForbiddenError);
    const restored = await items.restore(db.knex, { id: 2 }, { principal: who('tools', { roles: ['admin'] }) });
    expect(restored).toMatchObject({ id: 2, is_deleted: false });
    expect(restored).not.toHaveProperty('description');
    await expect(items.dbDelete(db.knex, { id: 2 }, { principal: tools })).rejects.toBeInstanceOf(ForbiddenError);
    const purger = who('garden', { permissions: ['items:purge'] });
    await expect(items.dbDelete(db.knex, { id: 2 }, { principal: purger })).rejects.toBeInstanceOf(NotFoundError);
    expect(await items.dbDelete(db.knex, { id: 3 }, { principal: purger })).toBe(1);
  });
});

// Ann's row alone is readable, never her email: what a book's joined author may show.
@Access({ read: { rows: { name: 'Ann' }, fields: { except: ['email'] } } })
class GuardedAuthor extends Model {
  static override tableName = 'authors';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' } },
  };
}

class OpenBook extends Model {
  static override tableName = 'books';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, title: { type: 'string' }, author_id: { type: ['integer', 'null'] } },
  };
  static override get relationMappings() {
    return {
      author: {
        relation: Model.BelongsToOneRelation,
        modelClass: GuardedAuthor,
        join: { from: 'books.author_id', to: 'authors.id' },
      },
    };
  }
}

describe("a related model's policy on joined rows", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openDatabase('sqlite');
    await createSchema(db.knex);
    await seedLibrary(db.knex);
  });
  afterAll(() => db?.destroy());

  it('leaves out related rows and fields the caller may not read, nested or flattened', async () => {
    const books = new CrudRepository(OpenBook);
    const read = (nestJoins: boolean) =>
      books.select(
        db.knex,
        { title__in: ['A1', 'B1'] },
        {
          principal: who('u'),
          joinsConfig: [{ relation: 'author', joinPrefix: 'writer_' }],
          nestJoins,
          sortColumns: 'id',
        },
      );
    expect((await read(true)).map((book) => book.author)).toEqual([{ id: 1, name: 'Ann' }, null]);
    expect(await read(false)).toEqual([
      { id: 1, title: 'A1', author_id: 1, writer_id: 1, writer_name: 'Ann' },
      { id: 4, title: 'B1', author_id: 2, writer_id: null, writer_name: null },
    ]);
    // The documented row leaves out what the related read rule hides from every caller.
    const documented = (nestJoins: boolean) => {
      const router = crudRouter({
        session: db.knex,
        model: OpenBook,
        path: '/books',
        includedMethods: ['read'],
        joinsConfig: [{ relation: 'author', joinPrefix: 'writer_' }],
        nestJoins,
      });
      return (router.routes[0].doc!.responses!['200'].schema as any).properties;
    };
    expect(Object.keys(documented(true).author.oneOf[0].properties)).toEqual(['id', 'name']);
    expect(Object.keys(documented(false))).toEqual(['id', 'title', 'author_id', 'writer_id', 'writer_name']);
  });
});

describe('the OpenAPI entry of a ruled operation', () => {
  it('states the security requirement, the 401/403 answers and the permissions it needs', () => {
    const router = crudRouter({
      session: () => undefined as never,
      model: Item,
      path: '/items',
      includedMethods: ['read', 'readMulti'],
      access: { list: { permissions: ['items:read'] } },
    });
    const security = {
      schemes: { bearer: { type: 'http', scheme: 'bearer' } },
      requirement: [{ bearer: [] }],
      dependencies: [],
    };
    const doc = buildOpenApiDocument({ label: 'v1', routes: router.routes, docs: { security } });
    const list = doc.paths['/items'].get;
    expect(list.security).toEqual([{ bearer: [] }]);
    expect(list['x-crudsmith-permissions']).toEqual(['items:read']);
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['401', '403']));
    expect(doc.paths['/items/{id}'].get.security).toBeUndefined();
  });
});

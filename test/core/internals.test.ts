import 'reflect-metadata';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import knexFactory from 'knex';
import { Type } from 'class-transformer';
import {
  dialectClass,
  dialectQuery,
  formatBindings,
  fsMigrations,
  hookKnexQuery,
  inKnexTransaction,
  isDisposed,
  knexQueryOf,
  markDisposed,
  methodOf,
  QUERY_UID,
  type Builder,
} from '../../core/src/data/knex-internals';
import { transformerMetadataMaps, transformerStorage } from '../../core/src/schema/transformer-storage';

// Every private member of knex and class-transformer that core reads, asserted on the
// installed versions: an upgrade that moves one fails here, by name, before any fast path
// built on it misbehaves. (The fast paths' own suites check what they do with them.)

const sqlite = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
afterAll(() => sqlite.destroy());

describe("knex's private surface", () => {
  it.each(['better-sqlite3', 'pg', 'mysql2'])(
    'the dialect table gives the %s client class with its own _query',
    (name) => {
      const dialect = dialectClass(name);
      expect(typeof dialect).toBe('function');
      expect(typeof dialectQuery(dialect)).toBe('function');
      expect(knexQueryOf(name)).toBe(dialectQuery(dialect));
      for (const method of [
        'acquireRawConnection',
        'destroyRawConnection',
        'query',
        'positionBindings',
        'prepBindings',
      ])
        expect(typeof (dialect.prototype as unknown as Record<string, unknown>)[method], method).toBe('function');
    },
  );

  it("a client's _query is its dialect's own, so a hook can take its place", async () => {
    const client = sqlite.client as unknown as { _query: unknown };
    expect(client._query).toBe(knexQueryOf('better-sqlite3'));
    const local = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    try {
      const seen: string[] = [];
      const own = knexQueryOf<(this: unknown, c: unknown, q: { sql: string }) => Promise<unknown>>('better-sqlite3');
      hookKnexQuery(local.client, 'better-sqlite3', function (this: unknown, c: unknown, q: { sql: string }) {
        seen.push(q.sql);
        return own.call(this, c, q);
      } as never);
      await local.raw('select 1 as one');
      expect(seen).toEqual(['select 1 as one']);
    } finally {
      await local.destroy();
    }
  });

  it('the better-sqlite3 client formats bindings for its driver', () => {
    const when = new Date(Date.UTC(2026, 0, 2));
    expect(formatBindings(sqlite.client, [true, when, 'x'])).toEqual([1, when.valueOf(), 'x']);
  });

  it('a builder keeps its method, single parts and statements where the builder walk reads them', () => {
    const builder = sqlite('items').select('id').where('id', 1).limit(5) as unknown as Builder;
    expect(methodOf(builder)).toBe('select');
    expect(builder._single).toMatchObject({ table: 'items', limit: 5 });
    expect(builder._statements.map((s) => s.grouping)).toEqual(['columns', 'where']);
    const timed = sqlite('items').timeout(5) as unknown as Builder;
    expect(timed._timeout).toBe(5);
    const commented = sqlite('items').comment('c') as unknown as Builder;
    expect(commented._comments).toHaveLength(1);
    const optioned = sqlite('items').options({ a: 1 }) as unknown as Builder;
    expect(optioned._options).toHaveLength(1);
  });

  it(`a compiled query carries its id under ${QUERY_UID}`, () => {
    expect(sqlite('items').where('id', 1).toSQL()).toHaveProperty(QUERY_UID);
  });

  it('a transaction marks the connection it holds', async () => {
    await sqlite.transaction(async (trx) => {
      const connection = (await trx.client.acquireConnection()) as object;
      expect(inKnexTransaction(connection)).toBe(true);
    });
    const connection = (await sqlite.client.acquireConnection()) as object;
    expect(inKnexTransaction(connection)).toBe(false);
    await sqlite.client.releaseConnection(connection);
  });

  it('a connection marked disposed is destroyed by the pool rather than handed out again', async () => {
    const local = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
      pool: { min: 0, max: 1 },
      log: { warn() {} },
    });
    try {
      const first = (await local.client.acquireConnection()) as object;
      markDisposed(first, new Error('gone'));
      expect(isDisposed(first)).toBe(true);
      await local.client.releaseConnection(first);
      const second = (await local.client.acquireConnection()) as object;
      expect(second).not.toBe(first);
      expect(isDisposed(second)).toBe(false);
      await local.client.releaseConnection(second);
    } finally {
      await local.destroy();
    }
  });

  it("knex's directory migration source reads a folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crudsmith-internals-'));
    try {
      writeFileSync(join(dir, '0001_first.js'), 'exports.up = async () => {}; exports.down = async () => {};');
      const source = fsMigrations(dir, false, undefined);
      const found = await source.getMigrations(['.js']);
      expect(found.map((m) => source.getMigrationName(m))).toEqual(['0001_first.js']);
      expect(typeof (await source.getMigration(found[0])).up).toBe('function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("class-transformer's metadata storage", () => {
  it('is found, and its maps are the ones the decorators write', () => {
    expect(transformerStorage()).toBeDefined();
    class Inner {}
    class Outer {
      @Type(() => Inner) inner!: Inner;
    }
    const maps = transformerMetadataMaps();
    expect(maps).not.toBeNull();
    expect(maps![0].has(Outer)).toBe(true);
  });
});

describe('the owners of private surfaces', () => {
  it("only the owner files read knex's or class-transformer's private members", () => {
    const root = join(__dirname, '..', '..', 'core', 'src');
    const owners = ['data/knex-internals.ts', 'data/builder-shape.ts', 'schema/transformer-storage.ts'];
    const privateName =
      /\._(statements|single|method|query|formatBindings|comments|options|timeout)\b|__knex|knex\/lib|cjs\/storage/;
    const readers = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => privateName.test(readFileSync(join(root, file), 'utf8')))
      .map((file) => relative(root, join(root, file)).split('\\').join('/'));
    expect(readers.filter((file) => !owners.includes(file))).toEqual([]);
    expect(readers.sort()).toEqual([...owners].sort());
  });
});

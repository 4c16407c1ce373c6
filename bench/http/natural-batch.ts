import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { READ_FIELDS } from './crudsmith-apps';
import { invalid, issue, itemValues, type Answer, type Row } from './floor-input';

// The natural floor's bulk create and export, as a person writes them for this one table:
// the array checked item by item, then one multi-row `INSERT … RETURNING` in a
// transaction; the export read in keyset pages by id (never an offset) and streamed as
// NDJSON, one page in memory at a time.

/** Largest array a bulk create takes, as crudsmith's default. */
const MAX_ITEMS = 1000;
/** Rows read per page of an export, as crudsmith's default. */
const EXPORT_PAGE = 500;

/** `POST /items/bulk`: 201 with the created rows, or 422 (each issue's `loc` starting at its index) and nothing written. */
export async function bulkCreate(knex: Knex, map: (row: Row) => Row, body: unknown): Promise<Answer> {
  if (!Array.isArray(body)) return invalid([issue(['body'], 'Input should be a valid array')]);
  if (body.length > MAX_ITEMS) return { status: 413, json: { detail: `At most ${MAX_ITEMS} items` } };
  const rows: Row[] = [];
  const issues: ReturnType<typeof issue>[] = [];
  body.forEach((item, index) => {
    const values = itemValues(item);
    if (Array.isArray(values))
      issues.push(...values.map((found) => ({ ...found, loc: [String(index), ...found.loc] })));
    else rows.push({ ...values, created_at: new Date() });
  });
  if (issues.length > 0) return invalid(issues);
  if (rows.length === 0) return { status: 201, json: [] };
  const created = await knex.transaction((trx) =>
    trx('items')
      .insert(rows)
      .returning([...READ_FIELDS]),
  );
  return { status: 201, json: (created as Row[]).map(map) };
}

/** `GET /items/export?format=ndjson&category=`: every live matching row, in id order. */
export function exportRows(knex: Knex, map: (row: Row) => Row, query: Record<string, unknown>): Answer {
  const { format, category } = query;
  if (format !== 'ndjson') return { status: 400, json: { detail: 'Only format=ndjson is offered' } };
  if (category !== undefined && typeof category !== 'string')
    return invalid([issue(['query', 'category'], 'Expected a single value')]);
  async function* pages() {
    let after = 0;
    for (;;) {
      const page = knex('items')
        .select([...READ_FIELDS])
        .where('is_deleted', false)
        .where('id', '>', after);
      if (category !== undefined) page.where('category', category);
      const rows = (await page.orderBy('id').limit(EXPORT_PAGE)) as Row[];
      if (rows.length > 0) yield rows.map((row) => `${JSON.stringify(map(row))}\n`).join('');
      if (rows.length < EXPORT_PAGE) return;
      after = rows[rows.length - 1].id as number;
    }
  }
  return {
    status: 200,
    stream: { type: 'application/x-ndjson', filename: 'items.ndjson', body: Readable.from(pages()) },
  };
}

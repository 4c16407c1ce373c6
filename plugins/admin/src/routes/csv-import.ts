import {
  BadRequestError,
  csvCellText,
  PayloadTooLargeError,
  ValidationError,
  mapDatabaseError,
  validateBody,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import { layoutLocals, translate, type AdminContext } from '../context';
import { csvRecords, type CsvRecord } from '../csv-records';
import { formValues } from '../form-fields';
import { guarded } from '../guard';
import { autoValues } from '../model-declaration';
import type { ResolvedView } from '../model-view';
import { html, seeOther } from '../page';
import type { RowCounts } from '../row-counts';
import { render } from '../templates';
import type { Translate } from '../i18n/translate';
import { requireCreate, scopeOf, seenBy } from '../view-access';

// A date-time with its zone, as the export writes one (`2026-01-02T03:04:05.678Z`).
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Largest CSV upload, in bytes, when the view names no other (a bigger one is a 413). */
export const IMPORT_MAX_BYTES = 1024 * 1024;

type Row = Record<string, unknown>;

/** The problems of one upload, each naming its line. */
class ImportRefused extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('; '));
  }
}

/** The import's byte bound: the view's `import.maxBytes`, or 1 MiB. */
export function importMaxBytes(view: ResolvedView): number {
  const option = view.view.import;
  return (typeof option === 'object' ? option.maxBytes : undefined) ?? IMPORT_MAX_BYTES;
}

/**
 * `POST {mount}/{model}/import` (`create` action, the view's `import` option): a CSV file
 * (multipart field `file`, the form's CSRF token beside it) whose header names create
 * fields (and maybe the list's others, which an export writes and the database sets),
 * each record validated as the create form's values are. Every row is written in
 * one transaction, or none: any invalid record, or one the database refuses, answers 422
 * with every problem by line number. One `import` event records how many rows came in.
 */
export function csvImportRoute(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor {
  const base = `${ctx.mount}/${view.name}`;
  const refused = (req: NeutralRequest, principal: AdminPrincipal, lines: string[]) =>
    html(
      422,
      render('import-errors', {
        ...layoutLocals(ctx, req, principal, translate(ctx, req)('import.title', { models: view.labels.plural })),
        errors: lines,
        back: `${base}/`,
      }),
    );
  return guarded(
    ctx,
    {
      method: 'POST',
      path: `${base}/import`,
      operation: `admin_${view.name}_import`,
      bodyLimit: importMaxBytes(view) + 64 * 1024,
    },
    async (req, principal) => {
      await requireCreate(ctx.knex, view, principal);
      const file = req.files.find((f) => f.field === 'file' && f.size > 0);
      if (!file) throw new BadRequestError('Choose a CSV file to import');
      if (file.size > importMaxBytes(view))
        throw new PayloadTooLargeError(`The file is over ${importMaxBytes(view)} bytes; split it and import each part`);
      try {
        const t = translate(ctx, req);
        // As the admin user sees the view: a field the create rule withholds is not taken from
        // the file (a column it may read was exported, and is skipped; any other is unknown).
        const rows = await checkedRows(req, seenBy(view, principal), file.data, t);
        await ctx.knex.transaction(async (trx) => {
          for (const { line, values } of rows) {
            try {
              await view.repository.create(trx, values, { returnRow: false, ...scopeOf(principal) });
            } catch (error) {
              const mapped = mapDatabaseError(error);
              if (!mapped || mapped.status >= 500) throw error;
              throw new ImportRefused([t('import.line', { line, problem: String(mapped.detail) })]);
            }
          }
          // The event in the same transaction: the rows and their record are kept or neither.
          await ctx.events
            .on(trx)
            .record(req, principal, [
              { type: 'import', model: view.name, details: { rows: rows.length, file: file.filename.slice(0, 100) } },
            ]);
        });
        counts.forget(view.name);
        await view.view.afterWrite?.('create');
        return seeOther(req, `${base}/`);
      } catch (error) {
        if (error instanceof ImportRefused) return refused(req, principal, error.lines);
        throw error;
      }
    },
  );
}

/** The file's records as create values, or an ImportRefused listing every bad line. */
async function checkedRows(
  req: NeutralRequest,
  view: ResolvedView,
  data: Buffer,
  t: Translate,
): Promise<{ line: number; values: Row }[]> {
  let records: CsvRecord[];
  try {
    records = csvRecords(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch (error) {
    if (error instanceof ValidationError && Array.isArray(error.detail))
      throw new ImportRefused(error.detail.map((issue) => issue.msg));
    throw new ImportRefused([t('import.notUtf8')]);
  }
  const [head, ...body] = records;
  if (!head || body.length === 0) throw new ImportRefused([t('import.noRows')]);
  // Only the create form's fields: never the password, a file, or a server-side column.
  const allowed = view.createFields.filter((f) => f !== view.password?.field && !view.view.files?.[f]);
  // The export's other columns (the key, times the server sets) are left for the database
  // to set, so a file the export wrote imports as it is.
  const exported = new Set(view.listColumns.map((column) => column.name));
  const unknown = head.cells.filter((name) => !allowed.includes(name) && !exported.has(name));
  const taken = head.cells.filter((name) => allowed.includes(name));
  if (unknown.length > 0)
    throw new ImportRefused([
      t('import.line', {
        line: 1,
        problem: t('import.unknownColumns', {
          unknown: unknown.map((n) => `'${n.slice(0, 64)}'`).join(', '),
          columns: allowed.join(', '),
        }),
      }),
    ]);
  const problems: string[] = [];
  const rows: { line: number; values: Row }[] = [];
  const auto = await autoValues(req, view.declaration.autoFields.create);
  for (const record of body) {
    if (record.cells.length !== head.cells.length) {
      problems.push(
        t('import.line', {
          line: record.line,
          problem: t('import.fieldCount', { count: record.cells.length, header: head.cells.length }),
        }),
      );
      continue;
    }
    const posted = Object.fromEntries(head.cells.map((name, i) => [name, cellValue(view, name, record.cells[i])]));
    try {
      let values = formValues(view, taken, posted, t);
      const schema = view.view.createSchema;
      if (!Array.isArray(schema)) values = await validateBody(schema, values);
      values = { ...values, ...auto };
      if (view.view.beforeWrite) values = await view.view.beforeWrite(values, 'create');
      rows.push({ line: record.line, values });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const issues = Array.isArray(error.detail) ? error.detail : [{ loc: [], msg: error.detail }];
      for (const issue of issues)
        problems.push(
          t('import.line', {
            line: record.line,
            problem: [issue.loc[issue.loc.length - 1], issue.msg].filter(Boolean).join(': '),
          }),
        );
    }
  }
  if (problems.length > 0) throw new ImportRefused(problems);
  return rows;
}

// A cell as the export writes it: a multi-value column as a JSON list, a date-time in UTC
// ISO 8601 (read as the form's input), text without the quote that neutralised a formula.
function cellValue(view: ResolvedView, name: string, raw: string): unknown {
  const cell = csvCellText(raw);
  if (view.info.columns.get(name)?.kind === 'datetime' && ZONED.test(cell)) {
    const at = new Date(cell);
    if (!Number.isNaN(at.getTime())) return at.toISOString().slice(0, 23);
  }
  if (view.arrays.has(name) && cell.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(cell);
      if (Array.isArray(list)) return list.map(String);
    } catch {
      // Not JSON: read as the form's one value a line.
    }
  }
  return cell;
}

import {
  BadRequestError,
  PayloadTooLargeError,
  ValidationError,
  mapDatabaseError,
  validateBody,
  type NeutralRequest,
  type RouteDescriptor,
} from '@crudsmith/core';
import type { AdminPrincipal } from '../admin-auth';
import { layoutLocals, type AdminContext } from '../context';
import { csvRecords, type CsvRecord } from '../csv-records';
import { formValues } from '../form-fields';
import { guarded } from '../guard';
import { autoValues } from '../model-declaration';
import type { ResolvedView } from '../model-view';
import { html, seeOther } from '../page';
import type { RowCounts } from '../row-counts';
import { render } from '../templates';
import { requireMay, scopeOf, seenBy } from '../view-access';

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
 * fields, each record validated as the create form's values are. Every row is written in
 * one transaction, or none: any invalid record, or one the database refuses, answers 422
 * with every problem by line number. One `import` event records how many rows came in.
 */
export function csvImportRoute(ctx: AdminContext, view: ResolvedView, counts: RowCounts): RouteDescriptor {
  const base = `${ctx.mount}/${view.name}`;
  const refused = (principal: AdminPrincipal, lines: string[]) =>
    html(
      422,
      render('import-errors', {
        ...layoutLocals(ctx, principal, `Import ${view.labels.plural.toLowerCase()}`),
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
      requireMay(view, 'create', principal);
      const file = req.files.find((f) => f.field === 'file' && f.size > 0);
      if (!file) throw new BadRequestError('Choose a CSV file to import');
      if (file.size > importMaxBytes(view))
        throw new PayloadTooLargeError(`The file is over ${importMaxBytes(view)} bytes; split it and import each part`);
      try {
        // A column the create rule withholds is refused as one the form does not have.
        const rows = await checkedRows(req, seenBy(view, principal), file.data);
        await ctx.knex.transaction(async (trx) => {
          for (const { line, values } of rows) {
            try {
              await view.repository.create(trx, values, { returnRow: false, ...scopeOf(principal) });
            } catch (error) {
              const mapped = mapDatabaseError(error);
              if (!mapped || mapped.status >= 500) throw error;
              throw new ImportRefused([`Line ${line}: ${String(mapped.detail)}`]);
            }
          }
        });
        counts.forget(view.name);
        await view.view.afterWrite?.('create');
        await ctx.events.record(req, principal, [
          { type: 'import', model: view.name, details: { rows: rows.length, file: file.filename.slice(0, 100) } },
        ]);
        return seeOther(req, `${base}/`);
      } catch (error) {
        if (error instanceof ImportRefused) return refused(principal, error.lines);
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
): Promise<{ line: number; values: Row }[]> {
  let records: CsvRecord[];
  try {
    records = csvRecords(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch (error) {
    if (error instanceof ValidationError && Array.isArray(error.detail))
      throw new ImportRefused(error.detail.map((issue) => issue.msg));
    throw new ImportRefused(['The file is not UTF-8 text']);
  }
  const [head, ...body] = records;
  if (!head || body.length === 0) throw new ImportRefused(['The file has no rows under its header line']);
  // Only the create form's fields: never the password, a file, or a server-side column.
  const allowed = view.createFields.filter((f) => f !== view.password?.field && !view.view.files?.[f]);
  const unknown = head.cells.filter((name) => !allowed.includes(name));
  if (unknown.length > 0)
    throw new ImportRefused([
      `Line 1: unknown column ${unknown.map((n) => `'${n.slice(0, 64)}'`).join(', ')} (columns: ${allowed.join(', ')})`,
    ]);
  const problems: string[] = [];
  const rows: { line: number; values: Row }[] = [];
  const auto = await autoValues(req, view.declaration.autoFields.create);
  for (const record of body) {
    if (record.cells.length !== head.cells.length) {
      problems.push(`Line ${record.line}: ${record.cells.length} fields, the header has ${head.cells.length}`);
      continue;
    }
    const posted = Object.fromEntries(head.cells.map((name, i) => [name, cellValue(view, name, record.cells[i])]));
    try {
      let values = formValues(view, head.cells, posted);
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
          `Line ${record.line}: ${[issue.loc[issue.loc.length - 1], issue.msg].filter(Boolean).join(': ')}`,
        );
    }
  }
  if (problems.length > 0) throw new ImportRefused(problems);
  return rows;
}

// A multi-value column comes as the export writes it, a JSON list; anything else as typed.
function cellValue(view: ResolvedView, name: string, cell: string): unknown {
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

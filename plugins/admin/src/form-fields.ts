import { ValidationError, type ColumnInfo, type ValidationIssue } from '@crudsmith/core';
import { toBoolean, toDate, type Shown } from './format-value';
import type { ResolvedView } from './model-view';
import { en } from './i18n/en';
import { translator, type Translate } from './i18n/translate';

/** One input of a generated form. */
export interface FormField {
  name: string;
  label: string;
  /** text, number, checkbox, datetime-local, date, select, password, textarea; `readonly`: no input, `shown` only. */
  input: string;
  required: boolean;
  maxLength?: number;
  step?: string;
  options?: { value: string; label: string; selected?: boolean }[];
  /** The current value as the input shows it (never a password). */
  value: string;
  checked?: boolean;
  /** A foreign key's search route: its select's search box asks it for rows. */
  lookup?: string;
  /** The content types a file input offers. */
  accept?: string;
  /** A read-only field's value as a list cell shows it. */
  shown?: Shown;
}

const DATETIME_LOCAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d{1,3})?)?$/;

function inputFor(column: ColumnInfo, view: ResolvedView): string {
  if (view.enums.has(column.name)) return 'select';
  switch (column.kind) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'checkbox';
    case 'datetime':
      return 'datetime-local';
    case 'date':
      return 'date';
    default:
      return column.maxLength !== undefined && column.maxLength <= 255 ? 'text' : 'textarea';
  }
}

function shown(value: unknown, input: string): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date)
    return input === 'date' ? value.toISOString().slice(0, 10) : value.toISOString().slice(0, 19);
  // Echoed form text stays as typed; a stored value (epoch ms on SQLite) is read as a date.
  if (input === 'datetime-local')
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)
      ? value.slice(0, 19)
      : (toDate(value)?.toISOString().slice(0, 19) ?? '');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The inputs of a form, from the schema's fields and the model's columns: the input type
 * from the column type, required marks (the given set on a create; on an update, a column
 * that cannot be emptied), maximum lengths, selects for enums and references.
 */
export function formFields(
  view: ResolvedView,
  fields: string[],
  values: Record<string, unknown>,
  { choices, required }: { choices: Map<string, { value: string; label: string }[]>; required?: ReadonlySet<string> },
): FormField[] {
  return fields.map((name) => {
    const label = view.labels.columns.get(name) ?? name;
    if (name === view.password?.field)
      return { name, label, input: 'password', required: required?.has(name) ?? false, value: '' };
    const multi = view.arrays.get(name);
    if (multi) {
      const current = Array.isArray(values[name])
        ? (values[name] as unknown[]).map(String)
        : typeof values[name] === 'string'
          ? parseList(values[name] as string)
          : [];
      return multi.options
        ? {
            name,
            label,
            input: 'multiselect',
            required: false,
            value: '',
            options: multi.options.map((o) => ({
              value: String(o),
              label: String(o),
              selected: current.includes(String(o)),
            })),
          }
        : { name, label, input: 'lines', required: false, value: current.join('\n') };
    }
    if (view.view.files?.[name])
      return {
        name,
        label,
        input: 'file',
        required: false,
        value: String(values[name] ?? ''),
        accept: view.view.files[name].types?.join(','),
      };
    const column = view.info.columns.get(name)!;
    const options = choices.get(name) ?? view.enums.get(name)?.map((v) => ({ value: String(v), label: String(v) }));
    const input = options ? 'select' : inputFor(column, view);
    const field: FormField = {
      name,
      label,
      input,
      required: required ? required.has(name) : !column.nullable && column.kind !== 'boolean',
      maxLength: column.maxLength,
      step: column.kind === 'number' ? 'any' : undefined,
      options: options && column.nullable ? [{ value: '', label: '—' }, ...options] : options,
      value: shown(values[name], input),
    };
    if (input === 'checkbox') field.checked = toBoolean(values[name]);
    return field;
  });
}

function last(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/**
 * The typed values of a posted form, for the fields it sent: numbers from their text,
 * checkboxes (a hidden `false` before each) as booleans, date-times as UTC ISO strings,
 * an empty input as null where the column allows it. Text that cannot be its column's
 * type is a 422 naming the field. An empty password field is left out (unchanged).
 */
export function formValues(
  view: ResolvedView,
  fields: string[],
  body: Record<string, unknown>,
  t: Translate = translator(en),
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  for (const name of fields) {
    if (!(name in body) || view.view.files?.[name]) continue;
    if (view.arrays.has(name)) {
      values[name] = listValue(view, name, body[name], { issues, t });
      continue;
    }
    const raw = last(body[name]);
    if (typeof raw !== 'string') continue;
    if (name === view.password?.field) {
      if (raw !== '') values[name] = raw;
      continue;
    }
    const column = view.info.columns.get(name)!;
    if (column.kind === 'boolean') {
      values[name] = Array.isArray(body[name])
        ? (body[name] as unknown[]).includes('true')
        : raw === 'true' || raw === 'on';
      continue;
    }
    if (raw === '') {
      if (column.nullable) values[name] = null;
      else if (column.kind === 'string') values[name] = '';
      continue;
    }
    if (column.kind === 'integer' || column.kind === 'number') {
      const ok = column.kind === 'integer' ? /^[+-]?\d{1,16}$/.test(raw) : /^[+-]?\d{1,16}(\.\d{1,16})?$/.test(raw);
      if (!ok || !Number.isFinite(Number(raw)))
        issues.push({
          loc: ['body', name],
          msg: t(column.kind === 'integer' ? 'form.enterWholeNumber' : 'form.enterNumber'),
          type: 'number_parsing',
        });
      else values[name] = Number(raw);
      continue;
    }
    if (column.kind === 'datetime') {
      const match = DATETIME_LOCAL.exec(raw);
      if (!match) issues.push({ loc: ['body', name], msg: t('form.enterDateTime'), type: 'datetime_parsing' });
      else values[name] = `${match[1]}T${match[2]}${match[3] ?? ':00'}Z`;
      continue;
    }
    values[name] = raw;
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return values;
}

/** Most values one multi-value field takes. */
export const MULTI_MAX = 100;

// A stored list as a form echoes it: JSON text (MariaDB answers JSON columns as text) or one value a line.
function parseList(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed.map(String);
  } catch {
    // not JSON: one value a line
  }
  return text
    .split('\n')
    .map((v) => v.trim())
    .filter(Boolean);
}

// The values of a multi-value field: the chosen options of a multiple select (each one
// the schema lists), or the lines of a text area; at most MULTI_MAX.
function listValue(
  view: ResolvedView,
  name: string,
  sent: unknown,
  { issues, t }: { issues: ValidationIssue[]; t: Translate },
): string[] {
  const options = view.arrays.get(name)!.options;
  const raw = [sent].flat().filter((v): v is string => typeof v === 'string');
  const list = (options ? raw : raw.flatMap((text) => text.split('\n'))).map((v) => v.trim()).filter(Boolean);
  if (list.length > MULTI_MAX)
    issues.push({ loc: ['body', name], msg: t('form.atMostValues', { count: MULTI_MAX }), type: 'too_long' });
  const unknown = options ? list.filter((v) => !options.map(String).includes(v)) : [];
  if (unknown.length > 0)
    issues.push({ loc: ['body', name], msg: t('form.notAChoice', { value: unknown[0].slice(0, 50) }), type: 'enum' });
  return list;
}

/** A ValidationError's messages by field, for the form. */
export function fieldMessages(error: ValidationError): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const issue of Array.isArray(error.detail) ? error.detail : []) {
    const field = String(issue.loc[1] ?? issue.loc[0]);
    messages[field] ??= issue.msg;
  }
  return messages;
}

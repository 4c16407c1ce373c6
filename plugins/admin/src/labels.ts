import type { ModelView } from './options';

/** A model view's human names. */
export interface ViewLabels {
  /** One row: "Order". */
  singular: string;
  /** The list: "Orders". */
  plural: string;
  /** Column → header and form label: `customer_id` → "Customer", `deleted_at` → "Deleted at". */
  columns: Map<string, string>;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A name as words: underscores and dashes as spaces, a leading `is_` and a trailing `_id` dropped, `id` as "ID". */
export function humanize(name: string): string {
  if (name === 'id') return 'ID';
  const words = name
    .replace(/^is_(?=.)/, '')
    .replace(/(?<=.)_id$/, '')
    .replace(/[_-]+/g, ' ')
    .trim();
  return capital(words.replace(/\bid\b/g, 'ID').replace(/\burl\b/g, 'URL'));
}

/** The singular of an English plural (the usual rules; a view names the odd ones itself). */
export function singularOf(plural: string): string {
  if (/ies$/i.test(plural)) return plural.replace(/ies$/i, 'y');
  if (/(ss|sh|ch|x|z)es$/i.test(plural)) return plural.replace(/es$/i, '');
  if (/[^s]s$/i.test(plural)) return plural.slice(0, -1);
  return plural;
}

/** The labels of a view: its own where given, else derived from its URL name and the column names. */
export function viewLabels(name: string, view: ModelView, columns: Iterable<string>): ViewLabels {
  const plural = view.label?.plural ?? humanize(name);
  const singular = view.label?.singular ?? singularOf(plural);
  const labels = new Map<string, string>();
  for (const column of columns) labels.set(column, view.columnLabels?.[column] ?? humanize(column));
  return { singular, plural, columns: labels };
}

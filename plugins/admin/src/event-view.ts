import type { ColumnInfo } from '@crudsmith/core';
import { showValue, type Shown } from './format-value';
import type { ResolvedView } from './model-view';
import { en } from './i18n/en';
import { translator, type Translate } from './i18n/translate';

/** One changed or recorded field of an event, as the log shows it. */
export interface EventField {
  field: string;
  before?: Shown;
  after: Shown;
}

// Browser and system names, most specific first (Edge and Opera also say Chrome; Chrome also says Safari).
const BROWSERS: [RegExp, string][] = [
  [/Edg\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[\d.]* .*Safari\//, 'Safari'],
  [/curl\/(\d+)/, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** A user agent as browser and system ("Chrome 131 on Linux", in the page's language); the whole string stays on hover. */
export function shortAgent(agent: string | null, t: Translate = translator(en)): string {
  if (!agent) return '';
  const text = agent.slice(0, 512);
  const browser = BROWSERS.map(([pattern, name]) => [pattern.exec(text), name] as const).find(([match]) => match);
  const system = SYSTEMS.find(([pattern]) => pattern.test(text))?.[1];
  const name = browser ? `${browser[1]} ${browser[0]![1]}` : text.split(/[\s/]/)[0].slice(0, 40);
  return system ? t('events.agent', { browser: name, system }) : name;
}

/** How an event's fields are labelled: the page's messages, and the view's many-to-many relations by name. */
export interface FieldLabels {
  t: Translate;
  /** A relation's name → its label on the form (the other view's plural label). */
  links?: ReadonlyMap<string, string>;
}

/**
 * An event's details as field rows: an update's changes with before and after, a created
 * or deleted record's values; each value shown by its column's type (for the reader's
 * language) when the model is a view, each field by its label, a link change's by its
 * relation's ("Badges (links)").
 */
export function eventFields(
  details: unknown,
  view: ResolvedView | undefined,
  { t, links = new Map() }: FieldLabels,
): EventField[] {
  if (!details || typeof details !== 'object') return [];
  const locale = t('language.tag');
  const column = (name: string): ColumnInfo | undefined => view?.info.columns.get(name);
  const label = (name: string) => {
    const link = links.get(name);
    return view?.labels.columns.get(name) ?? (link === undefined ? name : t('events.links', { models: link }));
  };
  const { changes, record } = details as {
    changes?: Record<string, { before: unknown; after: unknown }>;
    record?: Record<string, unknown>;
  };
  if (changes && typeof changes === 'object') {
    return Object.entries(changes).map(([name, change]) => ({
      field: label(name),
      before: showValue(change?.before, column(name), false, locale),
      after: showValue(change?.after, column(name), false, locale),
    }));
  }
  const values = record && typeof record === 'object' ? record : (details as Record<string, unknown>);
  return Object.entries(values).map(([name, value]) => ({
    field: label(name),
    after: showValue(value, column(name), false, locale),
  }));
}

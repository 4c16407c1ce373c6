import type { NeutralRequest } from '@crudsmith/core';
import { de } from './de';
import { en, type MessageKey, type Messages } from './en';

// Which language a page is in, and its messages: the reader's choice remembered in a
// cookie, else the first of the browser's `Accept-Language` the admin has, else English.

/** The cookie that remembers the reader's language (a preference, nothing secret). */
export const LANGUAGE_COOKIE = 'cs_admin_lang';

/** Looks a message up and fills its `{name}` placeholders. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** The catalogues the admin ships, by language tag. */
export const SHIPPED: Record<string, Messages> = { en, de };

/** The languages of one admin: the shipped ones with the app's messages merged over them. */
export interface Catalogue {
  /** The language tags, English first. */
  languages: string[];
  /** The messages of a language (missing keys fall back to English). */
  messages(language: string): Messages;
}

/**
 * The shipped catalogues with `overrides` merged over them: an override replaces a shipped
 * message, and a language the admin does not ship is added (its missing keys in English).
 */
export function catalogue(overrides: Record<string, Partial<Messages>> = {}): Catalogue {
  const merged = new Map<string, Messages>();
  for (const tag of new Set([...Object.keys(SHIPPED), ...Object.keys(overrides)]))
    merged.set(tag.toLowerCase(), { ...en, ...SHIPPED[tag], ...overrides[tag] });
  return { languages: [...merged.keys()], messages: (language) => merged.get(language) ?? en };
}

/** The language of a request: its cookie's when the admin has it, else the best of `Accept-Language`, else English. */
export function languageOf(req: Pick<NeutralRequest, 'cookies' | 'headers'>, languages: readonly string[]): string {
  const chosen = req.cookies?.[LANGUAGE_COOKIE]?.toLowerCase();
  if (chosen && languages.includes(chosen)) return chosen;
  const ranked = (req.headers['accept-language'] ?? '')
    .split(',')
    .slice(0, 20)
    .map((part, at) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag, q: q === undefined ? 1 : Number(q), at };
    })
    .filter((r) => r.tag && r.q > 0)
    .sort((a, b) => b.q - a.q || a.at - b.at);
  for (const { tag } of ranked) {
    if (languages.includes(tag)) return tag;
    const base = tag.split('-')[0];
    if (languages.includes(base)) return base;
  }
  return 'en';
}

/** A model's label as it reads inside a message of the page's language: "New item", "Item anlegen". */
export function inSentence(label: string, t: Translate): string {
  return t('language.labelCase') === 'lower' ? label.toLocaleLowerCase(t('language.tag')) : label;
}

/** The translate function of a catalogue's messages. */
export function translator(messages: Messages): Translate {
  return (key, values) => {
    const text = messages[key] ?? en[key] ?? key;
    return values
      ? text.replace(/\{(\w+)\}/g, (all, name: string) => (name in values ? String(values[name]) : all))
      : text;
  };
}

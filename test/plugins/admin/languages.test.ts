import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { ENGINES } from '../../fixtures/db';
import { en } from '../../../plugins/admin/src/i18n/en';
import { humanize } from '../../../plugins/admin/src/labels';
import { SHIPPED, languageOf } from '../../../plugins/admin/src/i18n/translate';
import { EVENT_TYPES } from '../../../plugins/admin/src/event-log';
import { showValue } from '../../../plugins/admin/src/format-value';
import { seed, startAdminApp, type AdminEnv, type Client } from './fixture';

// The admin's languages: every shipped catalogue has every key of the English one with the
// same placeholders; the reader's language comes from the cookie, else Accept-Language,
// else English; a German page keeps no English message. The language does not depend on
// the adapter or the database: one Koa app on the run's first engine.

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the message catalogues', () => {
  it('give every key of the English catalogue, none empty, with the same placeholders', () => {
    for (const [tag, messages] of Object.entries(SHIPPED)) {
      expect(Object.keys(messages).sort(), tag).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(messages)) {
        expect(text.trim(), `${tag} ${key}`).not.toBe('');
        expect(placeholders(text), `${tag} ${key}`).toEqual(placeholders(en[key as keyof typeof en]));
      }
    }
  });

  it('name every event type', () => {
    for (const type of EVENT_TYPES) expect(Object.keys(en)).toContain(`eventType.${type}`);
  });

  it('choose the cookie, else the best Accept-Language the admin has, else English', () => {
    const of = (accept: string | undefined, cookie?: string) =>
      languageOf({ headers: { 'accept-language': accept }, cookies: cookie ? { cs_admin_lang: cookie } : {} }, [
        'en',
        'de',
      ]);
    expect(of('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(of('fr-FR, en;q=0.5, de;q=0.7')).toBe('de');
    expect(of('en-US,en;q=0.9,de;q=0.8')).toBe('en');
    expect(of('de;q=0, fr')).toBe('en');
    expect(of(undefined)).toBe('en');
    expect(of('de', 'en')).toBe('en');
    expect(of('en', 'DE')).toBe('de');
    expect(of('de', 'xx')).toBe('de');
  });
  it("format dates and numbers by the catalogue's locale (integers ungrouped), in UTC on the server, an unknown tag as British English", () => {
    const at = new Date('2026-11-27T14:05:00Z');
    const datetime = { name: 'at', kind: 'datetime', nullable: false } as const;
    const number = { name: 'price', kind: 'number', nullable: true } as const;
    expect(showValue(at, datetime, false, SHIPPED.de['language.tag']).text).toBe('27.11.2026, 14:05 UTC');
    expect(showValue(at.getTime(), datetime, false, SHIPPED.en['language.tag']).text).toBe('27 Nov 2026, 14:05 UTC');
    expect(showValue(1234.5, number, false, 'de-DE').text).toBe('1.234,5');
    expect(showValue('1234.5', number, false, 'en-GB').text).toBe('1,234.5');
    // An integer column (ids, years, codes) is never grouped; a BIGINT the driver answers as
    // text keeps every digit.
    expect(showValue(2026, { ...number, kind: 'integer' }, false, 'en-GB').text).toBe('2026');
    expect(showValue('9007199254740993', { ...number, kind: 'integer' }, false, 'de-DE').text).toBe('9007199254740993');
    expect(showValue(1234.5, number, false, 'not a tag!').text).toBe('1,234.5');
  });
});

/**
 * The text a reader meets, line by line: element text and the titles, labels and
 * placeholders, entities decoded; without the lines that are `own` labels (the app's:
 * derived from its column names, or given in its view).
 */
function readable(html: string, own: ReadonlySet<string> = new Set()): string[] {
  const attributes = [...html.matchAll(/\s(?:title|aria-label|placeholder)="([^"]*)"/g)].map((m) => m[1]);
  const text = html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, '\n')
    .concat('\n', attributes.join('\n'));
  return text
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !own.has(line));
}

/** The English message parts among `lines`. */
const englishIn = (lines: string[]) => english.filter((part) => lines.some((line) => line.includes(part)));

// The English messages a German page must not show: each fixed part of a message (four
// characters or more) that is not German as well (`Browser`, `Filter`).
const german = Object.values(SHIPPED.de).join('\n');
const english = Object.entries(en)
  .filter(([key]) => !key.startsWith('language.'))
  .flatMap(([, text]) => text.split(/\{\w+\}/).map((part) => part.trim()))
  .filter((part) => part.length >= 4 && !german.includes(part));

describe('the admin in German', () => {
  let env: AdminEnv;
  let client: Client;
  let columnLabels: Set<string>;
  const DE = { 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5' };
  beforeAll(async () => {
    env = await startAdminApp(koaHarness, ENGINES[0], {
      eventIntegration: true,
      messages: { de: { 'layout.signOut': 'Tschüss' }, fr: { 'login.title': 'Connexion' } },
    });
    await seed(env.db, 3);
    client = await env.signedIn();
    // A soft delete, so the trash has a row, and events to list.
    await client.postForm('/admin/items/bulk-delete', { ids: ['1'] });
    columnLabels = new Set(Object.keys(await env.db.knex('items').columnInfo()).map(humanize));
  });
  afterAll(async () => env?.close());

  it('renders the main pages in German from Accept-Language, no English message left', async () => {
    const pages = [
      '/admin/',
      '/admin/items/',
      '/admin/items/create_page',
      '/admin/items/update/2',
      '/admin/items/trash',
      '/admin/management/events',
      '/admin/management/admin-users/',
    ];
    for (const path of pages) {
      const page = await client.get(path, DE);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain('<html lang="de"');
      expect(page.text, path).toContain('Tschüss');
      expect(englishIn(readable(page.text, columnLabels)), path).toEqual([]);
    }
    const list = await client.get('/admin/items/', DE);
    expect(list.text).toMatch(/\d+ Zeilen · Seite 1 von 1/);
    expect(list.text).toContain('Als CSV exportieren');
    const login = await env.client().get('/admin/login', DE);
    expect(login.text).toContain('<h1>Anmelden</h1>');
    expect(englishIn(readable(login.text))).toEqual([]);
    // An app's own language: its messages, English where it gives none.
    const french = await env.client().get('/admin/login', { 'Accept-Language': 'fr' });
    expect(french.text).toContain('<html lang="fr"');
    expect(french.text).toContain('<h1>Connexion</h1>');
    expect(french.text).toContain('>Password</label>');
  });

  it('formats numbers and dates for German, and names the new row as German reads', async () => {
    await env.db.knex('items').where({ id: 2 }).update({ price: 1234.5 });
    const list = await client.get('/admin/items/', DE);
    expect(list.text).toContain('<td class="num">1.234,5</td>');
    expect(list.text).toMatch(/<time datetime="[^"]+Z" title="[^"]+">\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC<\/time>/);
    expect(list.text).toContain('href="/admin/items/create_page">Item anlegen</a>');
    expect((await client.get('/admin/items/create_page', DE)).text).toContain('<h1>Item anlegen</h1>');
    const english = await client.get('/admin/items/', { 'Accept-Language': 'en' });
    expect(english.text).toContain('<td class="num">1,234.5</td>');
    expect(english.text).toContain('href="/admin/items/create_page">New item</a>');
  });

  it("answers a form's and an import's errors in German", async () => {
    const form = await client.request('POST', '/admin/items/form_create', {
      form: { csrf_token: client.csrf, name: 'x', price: 'abc' },
      headers: DE,
    });
    expect(form.status).toBe(422);
    expect(form.text).toContain('Geben Sie eine Zahl ein');
    const csv = new FormData();
    csv.append('csrf_token', client.csrf);
    csv.append('file', new Blob(['name,price\nx,abc\ny,1,2\n'], { type: 'text/csv' }), 'items.csv');
    const refused = await client.request('POST', '/admin/items/import', { multipart: csv, headers: DE });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('Nichts wurde importiert');
    expect(refused.text).toContain('Zeile 2: price: Geben Sie eine Zahl ein');
    expect(refused.text).toContain('Zeile 3: 3 Felder, die Kopfzeile hat 2');
    expect(englishIn(readable(refused.text, columnLabels))).toEqual([]);
  });

  it('remembers a chosen language in a cookie that wins over Accept-Language, and only goes back into the admin', async () => {
    const english = await client.get('/admin/items/', { 'Accept-Language': 'en' });
    const link = /<a href="([^"]+)" lang="de" hreflang="de">Deutsch<\/a>/
      .exec(english.text)?.[1]
      .replace(/&amp;/g, '&');
    expect(link).toBe('/admin/language?lang=de&next=%2Fadmin%2Fitems%2F');
    const chosen = await client.get(link!);
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('/admin/items/');
    expect(chosen.headers.get('set-cookie')).toMatch(/^cs_admin_lang=de; .*path=\/admin/i);
    const page = await client.get('/admin/items/', { 'Accept-Language': 'en' });
    expect(page.text).toContain('<html lang="de"');
    const back = await client.get('/admin/language?lang=en&next=https://evil.example/');
    expect(back.headers.get('location')).toBe('/admin/');
    expect((await client.get('/admin/', { 'Accept-Language': 'de' })).text).toContain('<html lang="en"');
    // An unknown language clears the choice: Accept-Language applies again.
    await client.get('/admin/language?lang=xx&next=//evil.example/');
    expect((await client.get('/admin/', { 'Accept-Language': 'de' })).text).toContain('<html lang="de"');
  });
});

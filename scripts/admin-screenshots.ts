// The admin's README screenshots: the example app on an in-memory SQLite database, a few
// rows seeded, photographed in Debian's chromium (the one the browser tests drive) at
// 1280 px in the light scheme and at 390 px in the dark one, a list page and an edit page
// each. Run from the repository root, then look at the pictures before committing them:
//   npx tsx --tsconfig tsconfig.json scripts/admin-screenshots.ts
import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import knexFactory from 'knex';
import { chromium } from 'playwright-core';
import { ensureFirstAdmin } from '../examples/app/src/admin';
import { buildApp } from '../examples/app/src/app';
import { ensureFirstSuperuser } from '../examples/app/src/first-superuser';
import { serve } from '../examples/app/src/server';

const OUT = resolve(__dirname, '../docs/images');
const ADMIN = { username: 'admin', password: 'screenshots only, never deployed' };

const POSTS = [
  ['Release 2.0: many-to-many in the admin', 'What changed, and how to upgrade.', ['release', 'admin']],
  ['Filtering posts by tag', 'A dotted filter goes through the join table, each post once.', ['howto', 'api']],
  ['Keyset pages, explained', 'Signed cursors that stay fast nine tenths into a table.', ['howto']],
  ['Sign out everywhere', 'Sessions, access and refresh tokens end together.', ['security']],
  ['Dark scheme and 390 px', 'The admin on a phone, following the system scheme.', ['admin']],
  ['Typed clients', 'Generated from the OpenAPI document, checked for drift.', ['api', 'release']],
] as const;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-shots-'));
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  const app = buildApp(knex, { secretKey: 'screenshots-secret-0123456789abcdefghijkl', bcryptRounds: 4, dataDir });
  await app.start(knex);
  await ensureFirstSuperuser(
    knex,
    app.auth,
    { username: 'ada', email: 'ada@example.com', password: ADMIN.password },
    () => {},
  );
  await ensureFirstAdmin(app.admin, ADMIN, () => {});
  const author = (await knex('users').where({ username: 'ada' }).first()).id;
  const tags = ['admin', 'api', 'howto', 'release', 'security'];
  await knex('tags').insert(tags.map((name) => ({ name })));
  const tagId = new Map((await knex('tags').select('id', 'name')).map((t) => [t.name as string, t.id as number]));
  for (const [i, [title, text, carried]] of POSTS.entries()) {
    const created_at = new Date(Date.UTC(2026, 10, 2 + i * 4, 9 + i, 30));
    const [id] = await knex('posts').insert({ title, text, author_id: author, created_at });
    await knex('post_tags').insert(carried.map((name) => ({ post_id: id, tag_id: tagId.get(name) })));
  }
  const server = await serve(app, { adapter: 'koa', host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
  mkdirSync(OUT, { recursive: true });
  try {
    for (const shot of [
      { width: 1280, height: 720, colorScheme: 'light' as const },
      { width: 390, height: 780, colorScheme: 'dark' as const },
    ]) {
      const context = await browser.newContext({
        baseURL: server.url,
        viewport: { width: shot.width, height: shot.height },
        colorScheme: shot.colorScheme,
      });
      const page = await context.newPage();
      await page.goto('/admin/login');
      await page.fill('#username', ADMIN.username);
      await page.fill('#password', ADMIN.password);
      await Promise.all([page.waitForURL('**/admin/'), page.click('form.login button[type=submit]')]);
      const name = `${shot.width}-${shot.colorScheme}`;
      await page.goto('/admin/posts/');
      await page.screenshot({ path: join(OUT, `admin-list-${name}.png`) });
      await page.goto('/admin/posts/update/1');
      await page.screenshot({ path: join(OUT, `admin-edit-${name}.png`) });
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
    await app.close();
    await knex.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const file of ['list', 'edit'].flatMap((p) => [`${p}-1280-light`, `${p}-390-dark`]))
    console.log(
      `docs/images/admin-${file}.png: ${Math.round(statSync(join(OUT, `admin-${file}.png`)).size / 1024)} KiB`,
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

// The quick-start consumer: compiled in the user's project with its own tsc, and run with plain node.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../temp-project';
import { compile, start, json, foreignFiles, readmeBlock, type UserProject } from '../user-project';

/** Registers the case of this consumer, run in the project `env`. */
export function quickStartCase(env: UserProject): void {
  it('the README Quick start is examples/quick-start/quick-start.ts, and it compiles with the README tsconfig (nodenext, CommonJS) and answers on Koa', async () => {
    const source = readFileSync(join(repoRoot, 'examples', 'quick-start', 'quick-start.ts'), 'utf8');
    expect(readmeBlock('Quick start in your own app', 'ts')).toBe(source);
    const tsconfig = JSON.parse(readmeBlock('Install', 'json')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ experimentalDecorators: true, strict: true });
    expect(tsconfig.compilerOptions).not.toHaveProperty('skipLibCheck');
    expect(tsconfig.compilerOptions).not.toHaveProperty('emitDecoratorMetadata');

    const folder = join(env.project, 'quick-start');
    mkdirSync(folder);
    writeFileSync(join(folder, 'quick-start.ts'), source);
    writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(tsconfig));
    const files = await compile('quick-start');
    // Koa without koa-session: the adapter's declarations must not need it.
    expect(foreignFiles(files, ['koa-session', '@types/busboy', '@types/co-body'])).toEqual([]);
    expect(readFileSync(join(folder, 'dist', 'quick-start.js'), 'utf8')).toContain('require("@crudsmith/koa")');

    const url = `${await start('quick-start', 'dist/quick-start.js', {})}/api/books`;
    expect(existsSync(join(folder, 'books.sqlite3'))).toBe(true);
    expect((await fetch(url, json('POST', { title: 'Dune', genre: 'sf' }))).status).toBe(201);
    expect((await fetch(url, json('POST', { title: 'Emma' }))).status).toBe(201);
    const refused = await fetch(url, json('POST', { genre: 'sf' }));
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ detail: [{ loc: ['body', 'title'] }] });
    expect(await (await fetch(url)).json()).toMatchObject({ total_count: 2 });
    expect(await (await fetch(`${url}?genre=sf`)).json()).toEqual({
      data: [{ id: 1, title: 'Dune', genre: 'sf' }],
      total_count: 1,
    });
    // The update schema is partial: a PATCH names only what changes.
    expect((await fetch(`${url}/1`, json('PATCH', { genre: 'classic' }))).status).toBe(200);
    expect(await (await fetch(`${url}/1`)).json()).toEqual({ id: 1, title: 'Dune', genre: 'classic' });
    expect((await fetch(`${url}/99`)).status).toBe(404);
  });
}

// The client consumer: compiled in the user's project with its own tsc, and run with plain node.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cleanEnv, run } from '../temp-project';
import { compile, esmConsumer, start, foreignFiles, type UserProject } from '../user-project';

/** Registers the case of this consumer, run in the project `env`. */
export function clientCase(env: UserProject): void {
  it('@crudsmith/client: its bin generates a module from a served document, and an ES module (nodenext) uses it', async () => {
    if (!existsSync(join(env.project, 'express-esm', 'dist', 'app.js'))) {
      esmConsumer('express-esm', { module: 'esnext', moduleResolution: 'bundler' });
      await compile('express-esm');
    }
    const url = await start('express-esm', 'dist/app.js', { DATABASE_FILE: 'client.sqlite3' });
    // The generated module exists only here, so the consumer is written here, not in consumers/.
    const folder = esmConsumer(
      'client-esm',
      { module: 'nodenext' },
      [
        "import { NotFoundError } from '@crudsmith/client';",
        "import { createClient } from './v2.js';",
        'const client = createClient({ baseUrl: process.env.API_URL! });',
        "await client.items.create({ name: 'Anvil', price: 3 });",
        "const listed = await client.items.list({ filters: { name: 'Anvil' } });",
        'const missing = await client.items.get(999_999).then(() => false, (error: unknown) => error instanceof NotFoundError);',
        'console.log(JSON.stringify({ names: listed.data.map((row) => row.name), missing }));',
      ].join('\n'),
    );
    const bin = join(env.project, 'node_modules', '.bin', 'crudsmith-client');
    const args = ['generate', '--input', `${url}/api/v2/openapi.json`, '--out', join(folder, 'v2.ts')];
    await run(process.execPath, [bin, ...args], { cwd: env.project });
    await run(process.execPath, [bin, ...args, '--check'], { cwd: env.project });
    const files = await compile('client-esm');
    expect(foreignFiles(files, ['@crudsmith/core', 'knex', 'objection'])).toEqual([]);
    const { stdout } = await run(process.execPath, ['dist/app.js'], {
      cwd: folder,
      env: cleanEnv({ API_URL: url }),
    });
    expect(JSON.parse(stdout)).toEqual({ names: ['Anvil'], missing: true });
  });
}

// The existing-app consumer: compiled in the user's project with its own tsc, and run with plain node.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { INIT, USERS_TIER } from '../../fixtures/existing-app-history';
import { cleanEnv, repoRoot, run } from '../temp-project';
import { compile, start, json, type UserProject } from '../user-project';

/** Registers the case of this consumer, run in the project `env`. */
export function existingAppCase(env: UserProject): void {
  it('an existing CommonJS app (module commonjs, no moduleResolution) keeps its knex history and enables every plugin, its users referencing tiers', async () => {
    const folder = join(env.project, 'existing-app');
    mkdirSync(join(folder, 'migrations'), { recursive: true });
    copyFileSync(join(repoRoot, 'test', 'packaging', 'consumers', 'existing-app-cjs.ts'), join(folder, 'app.ts'));
    const compilerOptions = {
      target: 'ES2022',
      module: 'commonjs',
      strict: true,
      esModuleInterop: true,
      experimentalDecorators: true,
      skipLibCheck: false,
      types: ['node'],
      outDir: 'dist',
    };
    writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['app.ts'] }));
    const files = await compile('existing-app');
    // The subpath entries the app's, the adapters' and the plugins' declarations import, found without exports.
    expect(files).toEqual(
      expect.arrayContaining([
        'node_modules/@crudsmith/core/dist/auth.d.ts',
        'node_modules/@crudsmith/core/dist/adapter.d.ts',
        'node_modules/@crudsmith/core/dist/server.d.ts',
        'node_modules/@crudsmith/core/dist/session.d.ts',
      ]),
    );
    expect(readFileSync(join(folder, 'dist', 'app.js'), 'utf8')).toContain('require("@crudsmith/core")');

    // The app as it was: its own history, applied by its own migrator.
    writeFileSync(join(folder, 'migrations', '20240101000000_init.js'), INIT);
    await run(process.execPath, ['dist/app.js'], { cwd: folder, env: cleanEnv({ MIGRATE_ONLY: '1' }) });
    // Then crudsmith, and a migration of the app's whose users reference the plugin's tiers.
    writeFileSync(join(folder, 'migrations', '20240601000000_users_tier.js'), USERS_TIER);
    const url = await start('existing-app', 'dist/app.js', {});
    const registered = await fetch(
      `${url}/auth/register`,
      json('POST', { username: 'ada', email: 'ada@example.com', password: 'a long and unusual passphrase' }),
    );
    expect(registered.status).toBe(201);
    const created = await fetch(`${url}/api/v1/items`, json('POST', { name: 'Hammer' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('x-ratelimit-limit')).toBe('50');
    expect((await fetch(`${url}/admin/login`)).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/api/versions`)).json()).toMatchObject({ available_versions: ['v1'] });
  });
}

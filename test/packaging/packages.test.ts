import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../fixtures/ports';
import { INIT, USERS_TIER } from '../fixtures/existing-app-history';
import { importsOfDeclarations } from './declarations';
import {
  buildAndPack,
  cleanEnv,
  installProject,
  lockedVersion,
  manifestOf,
  publishableDirs,
  repoRoot,
  run,
  type Packed,
} from './temp-project';

// The packages as a user gets them: built, packed, installed from the tarballs into a
// project outside the repository, compiled with plain tsc and run with plain node.

/** What the user's project installs beside our tarballs: the peers, a driver, TypeScript. */
const USER_PACKAGES = [
  'koa',
  '@types/koa',
  'express',
  '@types/express',
  'fastify',
  'knex',
  'objection',
  'class-validator',
  'class-transformer',
  'reflect-metadata',
  'better-sqlite3',
  // For the consumer of account's and rate-limit's /redis entries; the others must compile without it.
  'ioredis',
  'typescript',
  '@types/node',
];

/**
 * The entries whose declarations may import an optional peer, and which: what names
 * ioredis's client lives in account's and rate-limit's `/redis` entries, so an app that
 * imports only the main entries compiles without ioredis. Every entry's JavaScript loads
 * without its optional peers (tested below).
 */
const OPTIONAL_PEERS_OF_ENTRY: Record<string, string[]> = {
  '@crudsmith/account/redis': ['ioredis'],
  '@crudsmith/rate-limit/redis': ['ioredis'],
  '@crudsmith/core/s3': ['@aws-sdk/client-s3'],
};

/** The peers whose internals core reads, pinned to the versions the differential tests prove. */
const PINNED_PEERS = ['knex', 'objection', 'class-validator', 'class-transformer'];

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The first fenced block of `lang` in the README section headed `heading`. */
function readmeBlock(heading: string, lang: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section);
  if (!block) throw new Error(`README.md's "${heading}" has no \`\`\`${lang} block`);
  return block[1];
}

let base: string;
let packDir: string;
let project: string;
let packed: Packed[];
const running: ChildProcess[] = [];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'crudsmith-packaging-'));
  packDir = join(base, 'pack');
  project = join(base, 'project');
  packed = await buildAndPack(packDir);
  await installProject(project, packDir, packed, USER_PACKAGES);
}, 600_000);

afterAll(() => {
  for (const child of running) child.kill();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Compiles a consumer folder of the user's project with its own tsc; answers the files of the program. */
async function compile(folder: string): Promise<string[]> {
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  const { stdout } = await run(process.execPath, [tsc, '-p', folder, '--listFiles'], { cwd: project });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((file) => relative(project, file));
}

/**
 * An ES module consumer of the user's project: `test/packaging/consumers/<name>.ts` as its
 * app.ts, with `"type": "module"`, compiled with skipLibCheck off and only the types its
 * imports reach. Answers its folder.
 */
function esmConsumer(name: string, resolution: Record<string, string>, source?: string): string {
  const folder = join(project, name);
  mkdirSync(folder);
  if (source === undefined)
    copyFileSync(join(repoRoot, 'test', 'packaging', 'consumers', `${name}.ts`), join(folder, 'app.ts'));
  else writeFileSync(join(folder, 'app.ts'), source);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
  const compilerOptions = {
    target: 'ES2022',
    ...resolution,
    strict: true,
    esModuleInterop: true,
    experimentalDecorators: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'dist',
  };
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
  return folder;
}

/** Starts a compiled consumer with plain node and waits until it says it listens. */
async function start(folder: string, script: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    cwd: join(project, folder),
    env: cleanEnv({ ...env, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${folder} did not start within 60 s:\n${output}`)), 60_000);
    const listen = (chunk: Buffer) => {
      output += chunk;
      if (/listening/i.test(output)) {
        clearTimeout(timer);
        done();
      }
    };
    child.stdout!.on('data', listen);
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${folder} exited (${code}) before listening:\n${output}`));
    });
  });
  return `http://127.0.0.1:${port}`;
}

function json(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** ioredis's own types, installed in the project: a consumer of the main entries compiles without them in its program. */
const IOREDIS = ['ioredis', '@ioredis/commands'];

/** Folders outside a consumer's needs: it must compile without any of them in its program. */
function foreignFiles(files: string[], packages: string[]): string[] {
  return files.filter((file) => packages.some((name) => file.startsWith(`node_modules/${name}/`)));
}

// Each case compiles or runs whole programs; under `npm test` it shares the CPUs with every other suite.
describe('the published packages', { timeout: 180_000 }, () => {
  it('are every publishable workspace, each built and packed with dist, README.md, LICENSE and package.json only', () => {
    const { workspaces } = manifestOf('.') as unknown as { workspaces: string[] };
    const publishable = workspaces
      .flatMap((pattern) =>
        pattern.endsWith('/*')
          ? readdirSync(join(repoRoot, pattern.slice(0, -2))).map((dir) => `${pattern.slice(0, -2)}/${dir}`)
          : [pattern],
      )
      .filter((dir) => existsSync(join(repoRoot, dir, 'package.json')) && !manifestOf(dir).private);
    expect(publishableDirs().sort()).toEqual(publishable.sort());

    const license = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');
    expect(license).toContain('Copyright (c) 2026 the crudsmith authors');
    for (const p of packed) {
      const files = p.files.map((f) => f.path);
      expect(files.filter((f) => !f.startsWith('dist/')).sort(), p.name).toEqual([
        'LICENSE',
        'README.md',
        'package.json',
      ]);
      expect(
        files.filter((f) => /\.tsbuildinfo$|(^|\/)src\/|\.test\./.test(f)),
        p.name,
      ).toEqual([]);
      expect(readFileSync(join(repoRoot, p.dir, 'LICENSE'), 'utf8'), p.name).toBe(license);
      // Every entry point, with its declarations and source map, is in the tarball.
      for (const [entry, target] of Object.entries(p.manifest.exports ?? {})) {
        if (entry === './package.json') continue;
        const conditions = target as Record<string, string>;
        expect(Object.keys(conditions)[0], `${p.name} ${entry}: types first`).toBe('types');
        for (const file of Object.values(conditions))
          expect(files, `${p.name} ${entry}`).toContain(file.replace(/^\.\//, ''));
        expect(files, `${p.name} ${entry}`).toContain(
          conditions.default.replace(/^\.\//, '').replace(/\.js$/, '.js.map'),
        );
        // TypeScript's node10 resolution (the default of "module": "commonjs") reads no exports: typesVersions names each subpath's declarations.
        if (entry !== '.')
          expect(p.manifest.typesVersions?.['*']?.[entry.slice(2)], `${p.name} ${entry}: typesVersions`).toEqual([
            conditions.types,
          ]);
      }
    }
    expect(Object.keys(packed.find((p) => p.name === '@crudsmith/core')!.manifest.exports!)).toEqual([
      '.',
      './adapter',
      './session',
      './s3',
      './package.json',
    ]);
    for (const name of ['@crudsmith/account', '@crudsmith/rate-limit']) {
      expect(Object.keys(packed.find((p) => p.name === name)!.manifest.exports!), name).toEqual([
        '.',
        './redis',
        './package.json',
      ]);
    }
  });

  it('have manifests npm publishes as they are: license, engines, repository, dist entries, real ranges, the app-owned packages as peers', () => {
    for (const p of packed) {
      const m = p.manifest;
      expect(m.license, p.name).toBe('MIT');
      expect(m.engines, p.name).toEqual({ node: '>=20.19' });
      expect(m.repository?.directory, p.name).toBe(p.dir);
      expect(m.main, p.name).toBe('./dist/index.js');
      expect(m.types, p.name).toBe('./dist/index.d.ts');
      expect(m.files, p.name).toEqual(['dist', 'README.md', 'LICENSE']);
      expect(m.sideEffects, p.name).toBe(false);
      const ranges = { ...m.dependencies, ...m.peerDependencies };
      for (const [name, range] of Object.entries(ranges)) expect(range, `${p.name} → ${name}`).not.toBe('*');
      // What the user's app owns comes once, from the app: never a dependency of ours.
      for (const owned of [
        '@crudsmith/core',
        'koa',
        'express',
        'fastify',
        'knex',
        'objection',
        'class-validator',
        'class-transformer',
        'reflect-metadata',
        'ioredis',
        'koa-session',
      ]) {
        expect(Object.keys(m.dependencies ?? {}), p.name).not.toContain(owned);
      }
      expect(readFileSync(join(repoRoot, p.dir, 'README.md'), 'utf8'), p.name).toContain(`npm install ${p.name}`);
    }
    const koa = packed.find((p) => p.name === '@crudsmith/koa')!.manifest;
    // The adapter builds its own sub-router: a plain Koa app needs no @koa/router of its own.
    expect(koa.dependencies).toHaveProperty('@koa/router');
    expect(koa.peerDependenciesMeta?.['koa-session']?.optional).toBe(true);
    for (const name of ['@crudsmith/account', '@crudsmith/rate-limit']) {
      expect(packed.find((p) => p.name === name)!.manifest.peerDependenciesMeta?.ioredis?.optional, name).toBe(true);
    }
  });

  it('pin the peers whose internals core reads to the tested versions, as the README states', () => {
    const peers = packed.find((p) => p.name === '@crudsmith/core')!.manifest.peerDependencies!;
    for (const name of PINNED_PEERS) {
      expect(peers[name], name).toBe(`~${lockedVersion(name)}`);
      expect(readme, `README states the range of ${name}`).toContain(`\`${name}\` \`${peers[name]}\``);
      for (const p of packed) {
        const range = p.manifest.peerDependencies?.[name];
        if (range) expect(range, `${p.name} → ${name}`).toBe(peers[name]);
      }
    }
  });

  it('declare, from each entry, only node, their dependencies and their required peers (and ioredis from the /redis entries only)', () => {
    const builtin = new Set(builtinModules);
    const packageOf = (specifier: string) =>
      specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    const entries: string[] = [];
    for (const p of packed) {
      const m = p.manifest;
      const required = [
        ...Object.keys(m.dependencies ?? {}),
        ...Object.keys(m.peerDependencies ?? {}).filter((name) => !m.peerDependenciesMeta?.[name]?.optional),
      ];
      for (const [subpath, target] of Object.entries(m.exports ?? {})) {
        if (subpath === './package.json') continue;
        const entry = p.name + subpath.slice(1);
        entries.push(entry);
        const optional = OPTIONAL_PEERS_OF_ENTRY[entry] ?? [];
        const allowed = new Set([...required, ...optional]);
        const imported = [
          ...importsOfDeclarations(join(project, 'node_modules', p.name, (target as Record<string, string>).types)),
        ]
          .filter((specifier) => !specifier.startsWith('node:') && !builtin.has(specifier))
          .map(packageOf);
        expect(
          imported.filter((name) => !allowed.has(name)),
          entry,
        ).toEqual([]);
        // The allowance is exact: an entry listed above does import those peers.
        for (const peer of optional) expect(imported, entry).toContain(peer);
      }
    }
    expect(entries).toEqual(expect.arrayContaining(Object.keys(OPTIONAL_PEERS_OF_ENTRY)));
  });

  it('load with plain node from CommonJS and from ES modules, with the same names, without their optional peers', async () => {
    const entries = packed.flatMap((p) =>
      Object.keys(p.manifest.exports ?? {})
        .filter((e) => e !== './package.json')
        .map((e) => p.name + e.slice(1)),
    );
    // The optional peers (ioredis, koa-session, @aws-sdk/client-s3) are made unresolvable, as in an app without them.
    writeFileSync(
      join(project, 'without-optional-peers.cjs'),
      [
        "const Module = require('node:module');",
        'const resolve = Module._resolveFilename;',
        'Module._resolveFilename = function (request, ...rest) {',
        "  if (request === 'ioredis' || request === 'koa-session' || request === '@aws-sdk/client-s3') throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });",
        '  return resolve.call(this, request, ...rest);',
        '};',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'load.mjs'),
      [
        "import { createRequire } from 'node:module';",
        'const require = createRequire(import.meta.url);',
        'const out = {};',
        `for (const entry of ${JSON.stringify(entries)}) {`,
        '  const esm = await import(entry);',
        "  out[entry] = { cjs: Object.keys(require(entry)).sort(), esm: Object.keys(esm).filter((k) => !['default', 'module.exports', '__esModule'].includes(k)).sort() };",
        '}',
        'console.log(JSON.stringify(out));',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['--require', './without-optional-peers.cjs', 'load.mjs'], {
      cwd: project,
    });
    const loaded = JSON.parse(stdout) as Record<string, { cjs: string[]; esm: string[] }>;
    expect(Object.keys(loaded).sort()).toEqual([...entries].sort());
    for (const [entry, { cjs, esm }] of Object.entries(loaded)) {
      expect(cjs.length, entry).toBeGreaterThan(0);
      expect(esm, `${entry}: every CommonJS export is a named ES export`).toEqual(cjs);
    }
    // And the Redis client is still there for the apps that have ioredis.
    await run(
      process.execPath,
      [
        '-e',
        "require('@crudsmith/rate-limit/redis').createRedisClient({ host: '127.0.0.1', port: 1 }, { lazyConnect: true }).disconnect()",
      ],
      { cwd: project },
    );
  });
});

describe('consumers compiled with plain tsc and run with plain node', { timeout: 180_000 }, () => {
  it('the README Quick start is examples/quick-start/quick-start.ts, and it compiles with the README tsconfig (nodenext, CommonJS) and answers on Koa', async () => {
    const source = readFileSync(join(repoRoot, 'examples', 'quick-start', 'quick-start.ts'), 'utf8');
    expect(readmeBlock('Quick start in your own app', 'ts')).toBe(source);
    const tsconfig = JSON.parse(readmeBlock('Install', 'json')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ experimentalDecorators: true, strict: true });
    expect(tsconfig.compilerOptions).not.toHaveProperty('skipLibCheck');
    expect(tsconfig.compilerOptions).not.toHaveProperty('emitDecoratorMetadata');

    const folder = join(project, 'quick-start');
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

  it('an existing CommonJS app (module commonjs, no moduleResolution) keeps its knex history and enables every plugin, its users referencing tiers', async () => {
    const folder = join(project, 'existing-app');
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
    // The subpath entries the adapters' and plugins' declarations import, found without exports.
    expect(files).toEqual(
      expect.arrayContaining([
        'node_modules/@crudsmith/core/dist/session.d.ts',
        'node_modules/@crudsmith/core/dist/adapter.d.ts',
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
    expect(await (await fetch(`${url}/api/versions`)).json()).toMatchObject({ available_versions: ['v1'] });
  });

  it('an ES module on Express (moduleResolution bundler) serves two API versions and rate-limits v2 in memory', async () => {
    // Only the types the imports reach (`types: ['node']`): an Express app has no Koa, koa-session, busboy or co-body types.
    const folder = esmConsumer('express-esm', { module: 'esnext', moduleResolution: 'bundler' });
    const files = await compile('express-esm');
    expect(files).toContain('node_modules/@types/express/index.d.ts');
    expect(
      foreignFiles(files, [
        'koa',
        '@types/koa',
        'koa-session',
        '@koa/router',
        '@types/busboy',
        '@types/co-body',
        'busboy',
        'co-body',
      ]),
    ).toEqual([]);
    // Counting in memory through @crudsmith/rate-limit: ioredis is installed, yet not one of its types is read.
    expect(existsSync(join(project, 'node_modules', 'ioredis', 'package.json'))).toBe(true);
    expect(foreignFiles(files, IOREDIS)).toEqual([]);
    const emitted = readFileSync(join(folder, 'dist', 'app.js'), 'utf8');
    expect(emitted).toMatch(/^import .* from '@crudsmith\/express';$/m);
    expect(emitted).not.toContain('require(');

    const url = await start('express-esm', 'dist/app.js', { DATABASE_FILE: 'items.sqlite3', RATE_LIMIT: '3' });
    const created = await fetch(`${url}/api/v1/items`, json('POST', { name: 'Hammer', price: 12.5 }));
    expect(created.status).toBe(201);
    expect(created.headers.get('x-api-deprecation')).toBe('v1 is deprecated; use /api/v2');
    expect(created.headers.get('sunset')).toBeTruthy();
    expect(await (await fetch(`${url}/api/versions`)).json()).toMatchObject({
      available_versions: ['v1', 'v2'],
      current_version: 'v2',
      deprecated_versions: ['v1'],
    });

    // v2 is limited to 3 requests per window on each path (whatever the method); v1 is not limited at all.
    const first = await fetch(`${url}/api/v2/items/1`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-api-deprecation')).toBeNull();
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(await first.json()).toEqual({ id: 1, name: 'Hammer', price: 12.5 });
    expect((await fetch(`${url}/api/v2/items/1`, json('PATCH', { price: 10 }))).status).toBe(200);
    expect(await (await fetch(`${url}/api/v2/items/1`)).json()).toEqual({ id: 1, name: 'Hammer', price: 10 });
    const limited = await fetch(`${url}/api/v2/items/1`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await (await fetch(`${url}/api/v2/items?name=Hammer`)).json()).toEqual({
      data: [{ id: 1, name: 'Hammer', price: 10 }],
      total_count: 1,
    });
    expect((await fetch(`${url}/api/v1/items`)).status).toBe(200);
    const unknown = await fetch(`${url}/api/v3/items`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toHaveProperty('detail');
  });

  it('an ES module on Fastify (module node16) registers, signs in with a session and a bearer token, and creates behind auth', async () => {
    // Fastify ships its types: nothing but @types/node is needed.
    const folder = esmConsumer('fastify-account', { module: 'node16' });
    const files = await compile('fastify-account');
    expect(
      foreignFiles(files, ['@types/express', '@types/koa', 'koa-session', '@types/busboy', '@types/co-body']),
    ).toEqual([]);
    // Sessions in the database through @crudsmith/account: no ioredis type in the program.
    expect(foreignFiles(files, IOREDIS)).toEqual([]);
    expect(readFileSync(join(folder, 'dist', 'app.js'), 'utf8')).toMatch(
      /^import \{ account \} from '@crudsmith\/account';$/m,
    );

    const url = await start('fastify-account', 'dist/app.js', { DATABASE_FILE: 'notes.sqlite3' });
    const password = 'a long and unusual passphrase';
    const registered = await fetch(
      `${url}/auth/register`,
      json('POST', { username: 'ada', email: 'ada@example.com', password }),
    );
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ id: 1, username: 'ada', email: 'ada@example.com' });
    expect((await fetch(`${url}/notes`, json('POST', { text: 'anonymous' }))).status).toBe(401);

    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const login = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ username: 'ada', password }),
    });
    expect(login.status).toBe(200);
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect(await (await fetch(`${url}/auth/me`, { headers: { cookie } })).json()).toMatchObject({
      id: 1,
      transport: 'session',
    });
    expect((await fetch(`${url}/notes`, json('POST', { text: 'no csrf' }, { cookie }))).status).toBe(403);
    expect(
      (await fetch(`${url}/notes`, json('POST', { text: 'from a session' }, { cookie, 'x-csrf-token': csrf_token })))
        .status,
    ).toBe(201);

    const token = await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ username: 'ada', password }),
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const bearer = { authorization: `Bearer ${access_token}` };
    expect(await (await fetch(`${url}/auth/me`, { headers: bearer })).json()).toMatchObject({
      id: 1,
      transport: 'bearer',
    });
    expect((await fetch(`${url}/notes`, json('POST', { text: 'from a token' }, bearer))).status).toBe(201);
    expect(await (await fetch(`${url}/notes`)).json()).toEqual({
      data: [
        { id: 1, text: 'from a session' },
        { id: 2, text: 'from a token' },
      ],
      total_count: 2,
    });
  });

  it('an ES module (module nodenext) counts in a RedisStore and keeps sessions in a RedisSessionStore from the /redis entries, with ioredis types', async () => {
    const folder = esmConsumer('redis-entries', { module: 'nodenext' });
    const files = await compile('redis-entries');
    expect(files.some((file) => file.startsWith('node_modules/ioredis/'))).toBe(true);
    expect(readFileSync(join(folder, 'dist', 'app.js'), 'utf8')).toMatch(
      /^import \{ createRedisClient, RedisInvalidation, RedisStore \} from '@crudsmith\/rate-limit\/redis';$/m,
    );

    // A Redis that is not there: the store answers at once that it is unavailable, with the
    // main entry's error class (both entries share one copy of the package's modules).
    const { stdout } = await run(process.execPath, ['dist/app.js'], {
      cwd: folder,
      env: cleanEnv({ REDIS_PORT: String(await freePort()) }),
    });
    expect(JSON.parse(stdout)).toEqual({
      limiterStore: true,
      sessions: true,
      channel: 'crudsmith:rate-limit:invalidate',
      hit: 'StoreUnavailableError',
    });
  });

  it('@crudsmith/client: its bin generates a module from a served document, and an ES module (nodenext) uses it', async () => {
    if (!existsSync(join(project, 'express-esm', 'dist', 'app.js'))) {
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
    const bin = join(project, 'node_modules', '.bin', 'crudsmith-client');
    const args = ['generate', '--input', `${url}/api/v2/openapi.json`, '--out', join(folder, 'v2.ts')];
    await run(process.execPath, [bin, ...args], { cwd: project });
    await run(process.execPath, [bin, ...args, '--check'], { cwd: project });
    const files = await compile('client-esm');
    expect(foreignFiles(files, ['@crudsmith/core', 'knex', 'objection'])).toEqual([]);
    const { stdout } = await run(process.execPath, ['dist/app.js'], {
      cwd: folder,
      env: cleanEnv({ API_URL: url }),
    });
    expect(JSON.parse(stdout)).toEqual({ names: ['Anvil'], missing: true });
  });
});

// What npm would publish: the tarballs' files, the manifests, the pinned peers, what each
// entry's declarations import, and that every entry loads under CommonJS and ES modules.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { importsOfDeclarations } from './declarations';
import { lockedVersion, manifestOf, publishableDirs, repoRoot, run } from './temp-project';
import { readme, type UserProject } from './user-project';

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

/** The cases on the packed packages themselves, in the project `env`. */
export function publishedPackages(env: UserProject): void {
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
    for (const p of env.packed) {
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
    expect(Object.keys(env.packed.find((p) => p.name === '@crudsmith/core')!.manifest.exports!)).toEqual([
      '.',
      './adapter',
      './auth',
      './session',
      './server',
      './s3',
      './package.json',
    ]);
    for (const name of ['@crudsmith/account', '@crudsmith/rate-limit']) {
      expect(Object.keys(env.packed.find((p) => p.name === name)!.manifest.exports!), name).toEqual([
        '.',
        './redis',
        './package.json',
      ]);
    }
  });

  it('have manifests npm publishes as they are: license, engines, repository, dist entries, real ranges, the app-owned packages as peers', () => {
    for (const p of env.packed) {
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
    const koa = env.packed.find((p) => p.name === '@crudsmith/koa')!.manifest;
    // The adapter builds its own sub-router: a plain Koa app needs no @koa/router of its own.
    expect(koa.dependencies).toHaveProperty('@koa/router');
    expect(koa.peerDependenciesMeta?.['koa-session']?.optional).toBe(true);
    for (const name of ['@crudsmith/account', '@crudsmith/rate-limit']) {
      expect(env.packed.find((p) => p.name === name)!.manifest.peerDependenciesMeta?.ioredis?.optional, name).toBe(
        true,
      );
    }
  });

  it('pin the peers whose internals core reads to the tested versions, as the README states', () => {
    const peers = env.packed.find((p) => p.name === '@crudsmith/core')!.manifest.peerDependencies!;
    for (const name of PINNED_PEERS) {
      expect(peers[name], name).toBe(`~${lockedVersion(name)}`);
      expect(readme, `README states the range of ${name}`).toContain(`\`${name}\` \`${peers[name]}\``);
      for (const p of env.packed) {
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
    for (const p of env.packed) {
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
          ...importsOfDeclarations(join(env.project, 'node_modules', p.name, (target as Record<string, string>).types)),
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
    const entries = env.packed.flatMap((p) =>
      Object.keys(p.manifest.exports ?? {})
        .filter((e) => e !== './package.json')
        .map((e) => p.name + e.slice(1)),
    );
    // The optional peers (ioredis, koa-session, @aws-sdk/client-s3) are made unresolvable, as in an app without them.
    writeFileSync(
      join(env.project, 'without-optional-peers.cjs'),
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
      join(env.project, 'load.mjs'),
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
      cwd: env.project,
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
      { cwd: env.project },
    );
  });
}

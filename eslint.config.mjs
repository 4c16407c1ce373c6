// One lint config for the whole workspace. The import rules below keep the dependency
// direction: core knows no HTTP framework, adapters and plugins use core's
// public entry only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier/flat';

const frameworks = ['koa', 'koa-*', '@koa/*', 'express', 'express-*', 'fastify', '@fastify/*', 'ioredis', 'pug'];

// core's floors, bottom to top (ARCHITECTURE.md lists them): a file imports only from its
// own floor and the ones below. The entries (index, adapter, auth, session, server, s3)
// sit above all; two share a folder's name, so an entry is refused as that exact file.
const coreFloors = [
  ['errors'],
  ['text', 'migrations', 'storage'],
  ['http'],
  ['model'],
  ['schema'],
  ['data', 'access'],
  ['crud'],
  ['decorators'],
  ['registry'],
  ['security'],
  ['plugin', 'session'],
  ['server'],
  ['adapter-kit'],
];
const coreEntries = ['index', 'adapter', 'auth', 'session', 'server', 's3'];
const plugins = ['account', 'admin', 'rate-limit', 'versioning'];

const corePatterns = [
  { group: frameworks, message: 'core/ must not import an HTTP framework, ioredis or pug.' },
  // The request log takes any logger with pino's (fields, message) methods.
  { group: ['pino', 'pino-*'], message: 'core/ must not import a logging library: take a StructuredLogger.' },
  { group: ['**/adapters/**', '**/plugins/**', '@crudsmith/*'], message: 'core/ depends on no adapter or plugin.' },
];
const innerPatterns = [
  { group: ['@crudsmith/*/src/**', '**/core/src/**'], message: 'Import @crudsmith/core, never its inner files.' },
];

/** The imports a folder of core on `floor` may not make: every folder above it, and the entries. */
function floorRule(floor) {
  const above = coreFloors.slice(floor + 1).flat();
  const group = above.flatMap((name) => [`../${name}`, `../${name}/**`, `../../${name}`, `../../${name}/**`]);
  const message = `core/src/${coreFloors[floor].join(', ')} may import only its own floor and those below.`;
  const entries = `^(\\.\\./)+(${coreEntries.join('|')})$`;
  return [
    'error',
    {
      patterns: [...corePatterns, ...(group.length ? [{ group, message }] : []), { regex: entries, message }],
    },
  ];
}

/** Plugins never import one another, and an adapter imports no plugin. */
function packageRule(forbidden, message) {
  return ['error', { patterns: [...innerPatterns, { group: forbidden.map((name) => `@crudsmith/${name}`), message }] }];
}

export default tseslint.config(
  // test/docs/.snippets: the README code blocks the docs test writes out and type-checks.
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'test/docs/.snippets/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // Decorators and metadata are keyed by class constructors, typed as Function.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Few parameters (an options object beyond that); query builders pass (qb, what, scope, build), so 4 is the ceiling.
      'max-params': ['warn', 4],
    },
  },
  { files: ['core/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: corePatterns }] } },
  ...coreFloors.flatMap((folders, floor) =>
    folders.map((folder) => ({
      files: [`core/src/${folder}/**/*.ts`, `core/src/${folder}.ts`],
      rules: { 'no-restricted-imports': floorRule(floor) },
    })),
  ),
  { files: ['examples/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: innerPatterns }] } },
  {
    files: ['adapters/**/*.ts'],
    rules: { 'no-restricted-imports': packageRule(plugins, 'An adapter translates requests; it imports no plugin.') },
  },
  ...plugins.map((plugin) => ({
    files: [`plugins/${plugin}/**/*.ts`],
    rules: {
      'no-restricted-imports': packageRule(
        plugins.filter((other) => other !== plugin),
        'Plugins never import one another: they meet through core (principalOf, bootstrap).',
      ),
    },
  })),
  // Layout is Prettier's (npm run format); this turns off every lint rule it would fight.
  prettier,
);

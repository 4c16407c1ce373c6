// One lint config for the whole workspace. The import rules below keep the dependency
// direction: core knows no HTTP framework, adapters and plugins use core's
// public entry only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier/flat';

const frameworks = ['koa', 'koa-*', '@koa/*', 'express', 'express-*', 'fastify', '@fastify/*', 'ioredis', 'pug'];

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
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: frameworks, message: 'core/ must not import an HTTP framework, ioredis or pug.' },
            // The request log takes any logger with pino's (fields, message) methods.
            { group: ['pino', 'pino-*'], message: 'core/ must not import a logging library: take a StructuredLogger.' },
            {
              group: ['**/adapters/**', '**/plugins/**', '@crudsmith/*'],
              message: 'core/ depends on no adapter or plugin.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['adapters/**/*.ts', 'plugins/**/*.ts', 'examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@crudsmith/*/src/**', '**/core/src/**'],
              message: 'Import @crudsmith/core, never its inner files.',
            },
          ],
        },
      ],
    },
  },
  // Layout is Prettier's (npm run format); this turns off every lint rule it would fight.
  prettier,
);

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { defineConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));

// Tests run from source: every @crudsmith/* name maps to its src/ entry, as tsconfig.json's
// `paths` (the one list) says. Exact-match patterns, so `@crudsmith/core` never swallows
// `@crudsmith/core/adapter`.
function sourceAliases(): { find: RegExp; replacement: string }[] {
  const text = readFileSync(resolve(root, 'tsconfig.json'), 'utf8');
  const { config, error } = ts.parseConfigFileTextToJson('tsconfig.json', text);
  if (error) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  const paths = config.compilerOptions.paths as Record<string, string[]>;
  return Object.entries(paths).map(([name, [target]]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
    replacement: resolve(root, target),
  }));
}

// Two lanes. `unit` is the developer loop: the library's own suites on every adapter and
// engine, without the browser walks, the Redis-store suites, outages or second processes.
// `system` is the rest: the example app, packaging, fuzz, the docs, and the files `unit`
// leaves out. `npm test` runs both (scripts/test.mjs), `npm run test:unit` the first.
const unitDirs = ['test/core', 'test/crud', 'test/adapters', 'test/plugins', 'test/client'];
const systemDirs = ['test/example', 'test/packaging', 'test/fuzz', 'test/docs'];
const slow = ['browser', 'redis', 'outage', '-processes'].map((word) => `**/*${word}*.test.ts`);

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [...unitDirs.map((dir) => `${dir}/**/*.test.ts`), 'test/exports.test.ts'],
          exclude: slow,
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: [
            ...systemDirs.map((dir) => `${dir}/**/*.test.ts`),
            ...unitDirs.flatMap((dir) => slow.map((glob) => `${dir}/${glob}`)),
          ],
        },
      },
    ],
  },
});

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

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

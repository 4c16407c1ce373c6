import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// core's folders are floors (ARCHITECTURE.md lists them): a file imports only from its own
// floor and those below, so core's import graph has no circle. The lint config enforces the
// direction; these cases prove it does, and that no circle crept in sideways.
const root = resolve(__dirname, '../..');
const coreSrc = join(root, 'core/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each core file's relative imports (type imports included), resolved to files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(coreSrc)) {
    const targets: string[] = [];
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import) '(\.[^']*)'/g)) {
      const base = resolve(dirname(file), spec);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(path));
      if (target) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The first circle found, as a list of files, or undefined. */
function firstCircle(graph: Map<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    const at = path.indexOf(file);
    if (at >= 0) return path.slice(at);
    if (done.has(file)) return undefined;
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    done.add(file);
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

async function lintAs(filePath: string, code: string): Promise<string[]> {
  const [result] = await new ESLint({ cwd: root }).lintText(code, { filePath: join(root, filePath) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe("core's floors", () => {
  it('has no import circle, type imports included', () => {
    const circle = firstCircle(importGraph());
    expect(circle?.map((file) => relative(coreSrc, file))).toBeUndefined();
  });

  it('refuses in lint an import from a higher floor, and allows one from a lower floor', async () => {
    expect(await lintAs('core/src/data/probe.ts', "export type { CrudOptions } from '../crud/options';\n")).toEqual([
      expect.stringMatching(/core\/src\/data.* may import only its own floor and those below/),
    ]);
    expect(await lintAs('core/src/http/probe.ts', "export { useReplicas } from '../data/replicas';\n")).toHaveLength(1);
    expect(await lintAs('core/src/adapter-kit/wire/probe.ts', "export * from '../../index';\n")).toHaveLength(1);
    expect(await lintAs('core/src/crud/probe.ts', "export type { ModelInfo } from '../model/model-info';\n")).toEqual(
      [],
    );
  });

  it('refuses in lint a plugin importing another plugin, and an adapter importing a plugin', async () => {
    expect(await lintAs('plugins/admin/src/probe.ts', "export * from '@crudsmith/account';\n")).toHaveLength(1);
    expect(await lintAs('adapters/koa/src/probe.ts', "export * from '@crudsmith/rate-limit';\n")).toHaveLength(1);
    expect(await lintAs('plugins/admin/src/probe.ts', "export { bootstrap } from '@crudsmith/core';\n")).toEqual([]);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// core's folders are floors (ARCHITECTURE.md lists them): a file imports only from its own
// floor and those below, so core's import graph has no circle. The lint config enforces the
// direction; these cases prove it does, and that no circle crept in sideways.
const root = resolve(__dirname, '../..');
const coreSrc = join(root, 'core/src');
const accountSrc = join(root, 'plugins/account/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's relative imports (type imports included), resolved to files. */
function importGraph(src = coreSrc): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
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
    // An entry is refused as its exact file, even where a lower folder shares its name.
    expect(await lintAs('core/src/security/probe.ts', "export * from '../auth';\n")).toHaveLength(1);
    expect(await lintAs('core/src/adapter-kit/probe.ts', "export * from '../server';\n")).toHaveLength(1);
    expect(await lintAs('core/src/adapter-kit/probe.ts', "export * from '../server/request-id';\n")).toEqual([]);
  });

  it('refuses in lint a plugin importing another plugin, and an adapter importing a plugin', async () => {
    expect(await lintAs('plugins/admin/src/probe.ts', "export * from '@crudsmith/account';\n")).toHaveLength(1);
    expect(await lintAs('adapters/koa/src/probe.ts', "export * from '@crudsmith/rate-limit';\n")).toHaveLength(1);
    expect(await lintAs('plugins/admin/src/probe.ts', "export { bootstrap } from '@crudsmith/core';\n")).toEqual([]);
  });
});

// The account plugin's floors, bottom to top: the options it is configured with (options.ts
// and the feature option files it names), the shared floor (the other files at the root:
// the core, credentials, docs, sign-in step, part shape), the feature folders (each imports
// the floors below and itself, never another feature), and the entries that build it.
const accountEntries = ['account.ts', 'index.ts', 'redis.ts'];
const accountDeclarations = [
  'options.ts',
  'account-user.ts',
  'mfa/mfa-options.ts',
  'mfa/challenges.ts',
  'oauth/oauth-options.ts',
  'recovery/recovery-options.ts',
  'recovery/mail/templates.ts',
  'recovery/mail/transport.ts',
];

/** A file's floor (0 options, 1 shared, 2 features, 3 entries) and its feature folder. */
function accountFloor(file: string): { floor: number; feature: string } {
  const path = relative(accountSrc, file);
  const feature = path.includes('/') ? path.split('/')[0] : '';
  if (accountDeclarations.includes(path)) return { floor: 0, feature };
  if (accountEntries.includes(path)) return { floor: 3, feature };
  return { floor: feature ? 2 : 1, feature };
}

describe("the account plugin's floors", () => {
  const graph = importGraph(accountSrc);

  it('has no import circle, type imports included', () => {
    const circle = firstCircle(graph);
    expect(circle?.map((file) => relative(accountSrc, file))).toBeUndefined();
  });

  it('imports only down a floor, and no feature folder imports another', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const from = accountFloor(file);
      for (const target of targets) {
        const to = accountFloor(target);
        const down =
          to.floor < from.floor || (to.floor === from.floor && (from.floor !== 2 || to.feature === from.feature));
        if (!down) wrong.push(`${relative(accountSrc, file)} -> ${relative(accountSrc, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('builds the plugin without assigning into the shared core or the docs', () => {
    const source = readFileSync(join(accountSrc, 'account.ts'), 'utf8');
    expect(source).not.toMatch(/\b(core|docs|baseDocs)(\.\w+|\[[^\]]+\])+\s*(=[^=>]|\+=)|Object\.assign\(/);
    expect(source).toMatch(/mergeParts\(/);
  });

  it('keeps the options floor to what options.ts names', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) visit(next);
    };
    visit(join(accountSrc, 'options.ts'));
    expect([...reached].map((file) => relative(accountSrc, file)).sort()).toEqual([...accountDeclarations].sort());
  });
});

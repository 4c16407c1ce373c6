import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

// The bench measures the packages as users run them: their dist/ builds, never the
// TypeScript sources (which tsx would transform with esbuild, not tsc). bench/tsconfig.json
// drops the root's source `paths`; this file makes sure the build is current before
// anything loads it, and that no process of the bench loaded a package's src/ after all.

const ROOT = resolve(__dirname, '..', '..');

/**
 * The folders of the published packages: core, adapters/* and plugins/* with a
 * tsconfig.build.json (what `npm run build` builds), found without loading TypeScript,
 * which would weigh on the servers' heaps.
 */
function packageDirs(): string[] {
  const dirs = [
    'core',
    ...['adapters', 'plugins'].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(group, name))),
  ];
  return dirs.map((dir) => join(ROOT, dir)).filter((dir) => existsSync(join(dir, 'tsconfig.build.json')));
}

/**
 * The newest modification time under `dir`, folders included: deleting or renaming a
 * source file changes its folder's time, so a module the build would drop counts too.
 */
function newestUnder(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The files the `exports` of the package in `dir` name (./dist/...). */
function exportedFiles(dir: string): string[] {
  const files: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') files.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: unknown }).exports);
  return files;
}

/** Why the package in `dir` needs a build, or undefined when its dist/ is newer than its sources. */
function staleness(dir: string): string | undefined {
  const name = relative(ROOT, dir);
  // tsc -b writes the build info after the package's dist/; `npm run build` removes both first.
  const info = join(dir, '.tsbuildinfo');
  if (!existsSync(info)) return `${name} has no build`;
  // Two builds at once (each empties every dist/ first) can leave build info over a
  // half-written dist/: every file the package exports must be there.
  const missing = exportedFiles(dir).find((file) => !existsSync(join(dir, file)));
  if (missing !== undefined) return `${name}/${missing} is missing`;
  const built = statSync(info).mtimeMs;
  const newest = Math.max(newestUnder(join(dir, 'src')), statSync(join(dir, 'tsconfig.build.json')).mtimeMs);
  return newest > built ? `${name}/src changed since its build` : undefined;
}

/**
 * Builds every package (`npm run build`) unless each dist/ is newer than every file of its
 * src/, then says what the run measures. Runs before any @crudsmith module is loaded.
 */
export function ensureFreshBuild(): void {
  const stale = packageDirs()
    .map(staleness)
    .filter((reason) => reason !== undefined);
  if (stale.length > 0) {
    console.log(`building the packages (${stale.join('; ')}): npm run build`);
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0)
      throw new Error(
        `npm run build failed (exit ${build.status ?? build.signal}): the bench measures the built packages only`,
      );
  }
  console.log("measuring the built packages (@crudsmith/* from each package's dist/, as users run them)");
}

/** The modules of this process loaded from a package's src/, relative to the repository. */
export function sourceModulesLoaded(): string[] {
  const sources = packageDirs().map((dir) => join(dir, 'src') + sep);
  return Object.keys(require.cache)
    .filter((path) => sources.some((src) => path.startsWith(src)))
    .map((path) => relative(ROOT, path));
}

/**
 * Throws when this process loaded a package's src/ or resolves @crudsmith/core elsewhere
 * than core/dist: its numbers would be the sources' under tsx, not the build's.
 */
export function assertBuiltPackages(who: string): void {
  const core = require.resolve('@crudsmith/core');
  const loaded = sourceModulesLoaded();
  if (core === join(ROOT, 'core', 'dist', 'index.js') && loaded.length === 0) return;
  throw new Error(
    `${who} loaded crudsmith from source, not from the built packages ` +
      `(@crudsmith/core resolves to ${relative(ROOT, core)}; src modules loaded: ${loaded.slice(0, 5).join(', ') || 'none'}). ` +
      'Run it with bench/tsconfig.json (`npm run bench`, TSX_TSCONFIG_PATH for servers), which has no source `paths`.',
  );
}

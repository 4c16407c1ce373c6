// `npm run build`: compiles every publishable package (the references of
// tsconfig.build.json) from src/ to dist/ with `tsc -b`, each after the @crudsmith packages
// it references, since it compiles against their dist/*.d.ts as a user's project would.
// Every dist/ and build-info file is removed first: a deleted source file must not leave a
// stale module in what npm packs, and tsc -b must not skip a package it thinks is current.
// Files of src/ that tsc does not compile (the admin's pug templates, stylesheet and
// browser script) are copied to the same place under dist/, where the modules find them
// next to themselves, as they do in src/ when the repository runs from source.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const solution = join(root, 'tsconfig.build.json');

/** The folders of the packages tsconfig.build.json builds. */
export function packageDirs() {
  const { config, error } = ts.parseConfigFileTextToJson(solution, readFileSync(solution, 'utf8'));
  if (error) throw new Error(`tsconfig.build.json: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  return config.references.map((reference) => dirname(join(root, reference.path)));
}

/** Copies the files of `dir`/src that are not TypeScript into `dir`/dist, keeping their paths. */
export function copyAssets(dir) {
  const src = join(dir, 'src');
  if (!existsSync(src)) return;
  cpSync(src, join(dir, 'dist'), {
    recursive: true,
    filter: (path) => !['.ts', '.mts', '.cts'].includes(extname(path)),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  for (const dir of packageDirs()) {
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    rmSync(join(dir, '.tsbuildinfo'), { force: true });
  }
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-b', solution], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  for (const dir of packageDirs()) copyAssets(dir);
  console.log(`built ${packageDirs().length} packages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

// What a consumer's tsc must resolve when it reads one of our packages' declarations.

/** The .d.ts file a relative import of a declaration file names. */
function declarationAt(dir: string, specifier: string): string {
  const base = join(dir, specifier);
  const candidates = specifier.endsWith('.d.ts')
    ? [base]
    : [base.replace(/\.js$/, '') + '.d.ts', join(base, 'index.d.ts')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`${specifier}, imported in ${dir}, is no declaration file`);
  return found;
}

/** Every package a declaration file and the ones it reaches through relative imports import: what a consumer's tsc must resolve. */
export function importsOfDeclarations(entry: string): Set<string> {
  const imported = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    // TypeScript's own reading of the file: its imports (import() types included), path and types references.
    const { importedFiles, referencedFiles, typeReferenceDirectives } = ts.preProcessFile(
      readFileSync(file, 'utf8'),
      true,
      true,
    );
    for (const { fileName } of [...importedFiles, ...referencedFiles]) {
      if (fileName.startsWith('.')) visit(declarationAt(dirname(file), fileName));
      else imported.add(fileName);
    }
    for (const { fileName } of typeReferenceDirectives) imported.add(fileName);
  };
  visit(entry);
  return imported;
}

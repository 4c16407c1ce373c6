import { join } from 'node:path';
import { compileFile, type compileTemplate } from 'pug';

// The .pug files sit next to this module: in src/ when the repository runs from source,
// in dist/ once built (the build copies them there).
const DIR = join(__dirname, 'templates');

const compiled = new Map<string, compileTemplate>();

/** Names of the admin's templates. */
export type TemplateName =
  | 'login'
  | 'dashboard'
  | 'dashboard-content'
  | 'list'
  | 'list-content'
  | 'form'
  | 'error'
  | 'management-users'
  | 'management-sessions'
  | 'management-roles'
  | 'management-api-keys'
  | 'events'
  | 'trash'
  | 'import-errors';

/**
 * Renders a template with `locals`. Each is compiled once, on first use. pug escapes every
 * interpolation (`#{}` and `=`); no template uses the unescaped forms on request data.
 */
export function render(name: TemplateName, locals: Record<string, unknown>): string {
  let template = compiled.get(name);
  if (!template) {
    template = compileFile(join(DIR, `${name}.pug`), { basedir: DIR });
    compiled.set(name, template);
  }
  return template(locals);
}

import {
  FilterConfig,
  createRegistry,
  type CrudOptions,
  type Dependency,
  type FilterValue,
  type NeutralRequest,
} from '@crudsmith/core';
import type { Knex } from 'knex';
import type { ModelView } from './options';

/** Server-side values of admin writes: column → dependency, per write (`delete`: a soft delete's). */
export interface AutoFields {
  create: Record<string, Dependency<unknown>>;
  update: Record<string, Dependency<unknown>>;
  delete: Record<string, Dependency<unknown>>;
}

/** What the admin takes from a model's own `@Crud` and `@Filter`, with the view's overrides. */
export interface ModelDeclaration {
  /** The model's crudRouter options when it is decorated with `@Crud`. */
  options?: CrudOptions;
  autoFields: AutoFields;
}

function autoOf(config: unknown): Record<string, Dependency<unknown>> {
  return { ...(config as { autoFields?: Record<string, Dependency<unknown>> } | undefined)?.autoFields };
}

/**
 * Reads the model's declaration: its options (filters, sorting limits, auto fields) when
 * it carries `@Crud`, and the auto fields the admin writes, the view's own over the
 * model's, field by field.
 */
export function modelDeclaration(view: ModelView, knex: Knex): ModelDeclaration {
  const registry = createRegistry();
  const options = registry.declares(view.model) ? registry.optionsOf(view.model, { session: knex }) : undefined;
  return {
    options,
    autoFields: {
      create: { ...autoOf(options?.createConfig), ...view.autoFields?.create },
      update: { ...autoOf(options?.updateConfig), ...view.autoFields?.update },
      delete: { ...autoOf(options?.deleteConfig), ...view.autoFields?.delete },
    },
  };
}

/** Resolves the auto fields of a write on the admin's request. */
export async function autoValues(
  req: NeutralRequest,
  fields: Record<string, Dependency<unknown>>,
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const [field, dependency] of Object.entries(fields)) values[field] = await req.resolve(dependency);
  return values;
}

/**
 * The model's declared filters the admin's REST list honours. A dependency-valued filter
 * scopes rows to the API's caller, whom an admin request does not have: the admin sees
 * every row, as its pages do.
 */
export function adminFilters(options: CrudOptions | undefined): Record<string, FilterValue> {
  const config = options?.filterConfig;
  const filters = config instanceof FilterConfig ? config.filters : config;
  return Object.fromEntries(Object.entries(filters ?? {}).filter(([, value]) => typeof value !== 'function'));
}

import type { Knex } from 'knex';
import { Model } from 'objection';
import { CrudRepository, modelInfo, schemaFields as fieldsOf, type ColumnInfo, type ModelInfo } from '@crudsmith/core';
import { AdminModelTypeError, AdminSchemaError } from './errors';
import { viewLabels, type ViewLabels } from './labels';
import { modelDeclaration, type ModelDeclaration } from './model-declaration';
import type { AdminAction, ModelView, PasswordTransformer } from './options';

const ACTIONS: readonly AdminAction[] = ['view', 'create', 'update', 'delete'];

// Names the admin's own routes take under the mount path; a model may not shadow them.
const RESERVED = new Set(['login', 'logout', 'static', 'dashboard-content', 'crud', 'management']);

/** A model view checked at startup, with what its pages need. */
export interface ResolvedView {
  name: string;
  view: ModelView;
  info: ModelInfo;
  repository: CrudRepository;
  allowed: ReadonlySet<AdminAction>;
  /** Columns of the list. */
  listColumns: ColumnInfo[];
  /** List columns the admin user sees on some rows only: shown there, never searched, filtered nor sorted on. */
  rowOnly?: ReadonlySet<string>;
  createFields: string[];
  updateFields: string[];
  /** The JSON-schema format of each column (`uuid`, `email`...), and its enum values. */
  formats: Map<string, string>;
  enums: Map<string, unknown[]>;
  /** Multi-value (array) columns: the values they may hold, when the schema lists them. */
  arrays: Map<string, { options?: unknown[] }>;
  password?: PasswordTransformer;
  displayField: string;
  /** Fields never shown or logged: the password field and the column of its hash. */
  hidden: ReadonlySet<string>;
  /** The model's own `@Crud` declaration and the auto fields of admin writes. */
  declaration: ModelDeclaration;
  /** Human names of the view and its columns. */
  labels: ViewLabels;
}

/**
 * Checks a model view and answers what its pages need. A class that is not an objection
 * model, a schema field that is neither a column nor the password field, an unknown
 * action or column fails here, at startup, naming the view and the problem.
 */
export function resolveView(name: string, view: ModelView, knex: Knex): ResolvedView {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name) || RESERVED.has(name)) {
    throw new AdminSchemaError(
      `Admin model name '${name}' must be 1-64 letters, digits, _ or -, and not one of ${[...RESERVED].join(', ')}`,
    );
  }
  const model = view.model as unknown;
  if (typeof model !== 'function' || !(model.prototype instanceof Model)) {
    throw new AdminModelTypeError(`Admin model '${name}': model must be an objection Model class`);
  }
  const info = modelInfo(view.model);
  const unknownActions = (view.allowedActions ?? []).filter((a) => !ACTIONS.includes(a));
  if (!Array.isArray(view.allowedActions) || view.allowedActions.length === 0 || unknownActions.length > 0) {
    throw new AdminSchemaError(
      `Admin model '${name}': allowedActions must list some of ${ACTIONS.join(', ')}${unknownActions.length ? `; unknown: ${unknownActions.join(', ')}` : ''}`,
    );
  }
  if (!view.createSchema || !view.updateSchema)
    throw new AdminSchemaError(`Admin model '${name}': createSchema and updateSchema are required`);
  const password = view.passwordTransformer;
  if (password && !info.columns.has(password.column)) {
    throw new AdminSchemaError(
      `Admin model '${name}': passwordTransformer column '${password.column}' is not a column of ${view.model.name}`,
    );
  }
  const check = (label: string, fields: string[]) => {
    const bad = fields.filter((f) => !info.columns.has(f) && f !== password?.field);
    if (bad.length > 0)
      throw new AdminSchemaError(
        `Admin model '${name}': ${label} fields not in model ${view.model.name}: ${bad.join(', ')}`,
      );
    return fields;
  };
  check('createSchema', fieldsOf(view.createSchema));
  check('updateSchema', fieldsOf(view.updateSchema));
  if (view.updateInternalSchema) check('updateInternalSchema', fieldsOf(view.updateInternalSchema));
  if (view.deleteSchema) check('deleteSchema', fieldsOf(view.deleteSchema));
  const hidden = new Set([password?.column, password?.field].filter((f): f is string => Boolean(f)));
  const selected = view.selectSchema ? check('selectSchema', fieldsOf(view.selectSchema)) : [...info.columns.keys()];
  const listColumns = selected.filter((c) => !hidden.has(c) && info.columns.has(c)).map((c) => info.columns.get(c)!);
  const displayField = view.displayField ?? info.idColumn;
  if (!info.columns.has(displayField))
    throw new AdminSchemaError(
      `Admin model '${name}': displayField '${displayField}' is not a column of ${view.model.name}`,
    );
  for (const column of Object.keys(view.files ?? {})) {
    if (!info.columns.has(column))
      throw new AdminSchemaError(
        `Admin model '${name}': files column '${column}' is not a column of ${view.model.name}`,
      );
    const file = view.files![column];
    if ((typeof file.store === 'function') === (file.storage !== undefined))
      throw new AdminSchemaError(
        `Admin model '${name}': files.${column} needs a storage or a store function, not both`,
      );
  }
  for (const column of [view.verifiedEmail?.column, view.verifiedEmail?.flag].filter(
    (c): c is string => c !== undefined,
  )) {
    if (!info.columns.has(column))
      throw new AdminSchemaError(
        `Admin model '${name}': verifiedEmail column '${column}' is not a column of ${view.model.name}`,
      );
  }
  for (const column of Object.keys(view.columnLabels ?? {})) {
    if (!info.columns.has(column) && column !== password?.field)
      throw new AdminSchemaError(
        `Admin model '${name}': columnLabels names '${column}', which is not a column of ${view.model.name}`,
      );
  }
  for (const column of Object.keys(view.references ?? {})) {
    if (!info.columns.has(column))
      throw new AdminSchemaError(
        `Admin model '${name}': references column '${column}' is not a column of ${view.model.name}`,
      );
  }
  const declaration = modelDeclaration(view, knex);
  for (const column of Object.values(declaration.autoFields).flatMap((fields) => Object.keys(fields))) {
    if (!info.columns.has(column))
      throw new AdminSchemaError(`Admin model '${name}': auto field '${column}' is not a column of ${view.model.name}`);
  }
  // An auto field is the server's to write: never an input of the form it fills.
  const createFields = check('createSchema', fieldsOf(view.createSchema)).filter(
    (f) => !(f in declaration.autoFields.create),
  );
  const updateFields = check('updateSchema', fieldsOf(view.updateSchema)).filter(
    (f) => !(f in declaration.autoFields.update),
  );
  const properties = (
    view.model.jsonSchema as {
      properties: Record<
        string,
        { format?: string; enum?: unknown[]; type?: string | string[]; items?: { enum?: unknown[] } }
      >;
    }
  ).properties;
  const arrays = new Map<string, { options?: unknown[] }>();
  const formats = new Map<string, string>();
  const enums = new Map<string, unknown[]>();
  for (const [column, property] of Object.entries(properties)) {
    if (typeof property.format === 'string') formats.set(column, property.format);
    if (Array.isArray(property.enum))
      enums.set(
        column,
        property.enum.filter((v) => v !== null),
      );
    if ([property.type].flat().includes('array'))
      arrays.set(column, { options: Array.isArray(property.items?.enum) ? property.items.enum : undefined });
  }
  return {
    name,
    view,
    info,
    repository: new CrudRepository(view.model),
    allowed: new Set(view.allowedActions),
    listColumns,
    createFields,
    updateFields,
    formats,
    enums,
    arrays,
    password,
    displayField,
    hidden,
    declaration,
    labels: viewLabels(name, view, [...info.columns.keys(), ...(password ? [password.field] : [])]),
  };
}

/** Checks the cross-references between views (a `references` target must be a view). */
export function checkReferences(views: Map<string, ResolvedView>): void {
  for (const view of views.values()) {
    for (const [column, target] of Object.entries(view.view.references ?? {})) {
      if (!views.has(target))
        throw new AdminSchemaError(
          `Admin model '${view.name}': references.${column} names '${target}', which is not an admin model`,
        );
    }
  }
}

/** Ends every sign-in of the rows' accounts through the view's `signOutEverywhere` (nothing without one). */
export async function signOutAll(view: ResolvedView, ids: readonly unknown[]): Promise<void> {
  const signOut = view.view.signOutEverywhere;
  if (!signOut) return;
  // An account's key is one column; a composite key names no account.
  for (const id of ids) if (typeof id === 'string' || typeof id === 'number') await signOut(id);
}

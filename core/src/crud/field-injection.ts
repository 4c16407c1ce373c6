import type { Dependency, NeutralRequest } from '../http/neutral';

/** Server-side field injection (`CreateConfig`, `UpdateConfig`, `DeleteConfig`). */
export interface FieldInjectionInit {
  /** Field → dependency whose value is written; the client may not send these fields. */
  autoFields?: Record<string, Dependency<unknown>>;
  /** Fields hidden from the published request schema (and refused in bodies). */
  excludeFromSchema?: string[];
}

/** Shared shape of the three configs. */
export class FieldInjection {
  readonly autoFields: Record<string, Dependency<unknown>>;
  readonly excludeFromSchema: string[];

  constructor(init: FieldInjectionInit = {}) {
    this.autoFields = { ...init.autoFields };
    this.excludeFromSchema = [...(init.excludeFromSchema ?? [])];
  }

  /** Fields a client body may not carry. */
  get forbidden(): string[] {
    return [...new Set([...Object.keys(this.autoFields), ...this.excludeFromSchema])];
  }

  /** Resolves every auto field for this request. */
  async values(req: NeutralRequest): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const [field, dependency] of Object.entries(this.autoFields)) values[field] = await req.resolve(dependency);
    return values;
  }
}

/** Auto fields written on create. */
export class CreateConfig extends FieldInjection {}
/** Auto fields written on update. */
export class UpdateConfig extends FieldInjection {}
/** Auto fields written on soft delete (for example `deleted_by`). */
export class DeleteConfig extends FieldInjection {}

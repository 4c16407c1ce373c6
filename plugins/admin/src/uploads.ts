import { BadRequestError, PayloadTooLargeError, type NeutralRequest } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

/** Default largest upload of a file field: 2 MiB. */
export const FILE_MAX_BYTES = 2 * 1024 * 1024;

/** The largest body a view's forms accept: its biggest file fields together, plus room for the other fields. */
export function formBodyLimit(view: ResolvedView): number | undefined {
  const files = Object.values(view.view.files ?? {});
  if (files.length === 0) return undefined;
  return files.reduce((sum, f) => sum + (f.maxBytes ?? FILE_MAX_BYTES), 0) + 256 * 1024;
}

/**
 * The stored values of the files a form sent, one per file field: each checked for size
 * (413) and type (400) before its `store` runs. A field sent without a file leaves its
 * column as it is.
 */
export async function storeUploads(view: ResolvedView, req: NeutralRequest): Promise<Record<string, string>> {
  const stored: Record<string, string> = {};
  for (const [column, field] of Object.entries(view.view.files ?? {})) {
    const file = req.files.find((f) => f.field === column && f.size > 0);
    if (!file) continue;
    if (file.size > (field.maxBytes ?? FILE_MAX_BYTES))
      throw new PayloadTooLargeError(`${column}: the file is larger than ${field.maxBytes ?? FILE_MAX_BYTES} bytes`);
    if (field.types && !field.types.includes(file.contentType))
      throw new BadRequestError(`${column}: a file of type ${field.types.join(', ')} is expected`);
    stored[column] = await field.store(file);
  }
  return stored;
}

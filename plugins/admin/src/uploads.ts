import { randomBytes } from 'node:crypto';
import { BadRequestError, PayloadTooLargeError, type NeutralRequest, type Storage } from '@crudsmith/core';
import type { ResolvedView } from './model-view';

/** Default largest upload of a file field: 2 MiB. */
export const FILE_MAX_BYTES = 2 * 1024 * 1024;

/** The largest body a view's forms accept: its biggest file fields together, plus room for the other fields. */
export function formBodyLimit(view: ResolvedView): number | undefined {
  const files = Object.values(view.view.files ?? {});
  if (files.length === 0) return undefined;
  return files.reduce((sum, f) => sum + (f.maxBytes ?? FILE_MAX_BYTES), 0) + 256 * 1024;
}

/** The files a form stored: the column values, and how to undo or finish their writes. */
export interface StoredUploads {
  /** Column → what it stores (the key in the field's storage, or what its `store` answered). */
  values: Record<string, string>;
  /** Removes the objects this form wrote to a storage: their row write failed, so nothing refers to them. */
  discard(): Promise<void>;
  /** After the row's update: removes the storage objects the new uploads replaced (`before` is the row before it). */
  dropReplaced(before: Record<string, unknown>): Promise<void>;
}

/**
 * Keeps the files a form sent, one per file field: each checked for size (413) and type
 * (400) before it is written. A field sent without a file leaves its column as it is.
 */
export async function storeUploads(view: ResolvedView, req: NeutralRequest): Promise<StoredUploads> {
  const values: Record<string, string> = {};
  const written: { column: string; storage: Storage; key: string }[] = [];
  const discard = async () => {
    // Best effort: a store that fails here must not hide the error that led to the removal.
    await Promise.all(written.map(({ storage, key }) => storage.delete(key).catch(() => undefined)));
  };
  try {
    for (const [column, field] of Object.entries(view.view.files ?? {})) {
      const file = req.files.find((f) => f.field === column && f.size > 0);
      if (!file) continue;
      if (file.size > (field.maxBytes ?? FILE_MAX_BYTES))
        throw new PayloadTooLargeError(`${column}: the file is larger than ${field.maxBytes ?? FILE_MAX_BYTES} bytes`);
      if (field.types && !field.types.includes(file.contentType))
        throw new BadRequestError(`${column}: a file of type ${field.types.join(', ')} is expected`);
      if (field.storage) {
        const key = `${keyPrefix(view, column)}${randomBytes(16).toString('hex')}${extension(file.filename)}`;
        await field.storage.put(key, file.data, { contentType: file.contentType || 'application/octet-stream' });
        written.push({ column, storage: field.storage, key });
        values[column] = key;
      } else values[column] = await field.store!(file);
    }
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    values,
    discard,
    async dropReplaced(before) {
      const stale = written.flatMap(({ column, storage }) => {
        const old = before[column];
        return typeof old === 'string' && old.startsWith(keyPrefix(view, column)) && old !== values[column]
          ? [{ storage, key: old }]
          : [];
      });
      await Promise.all(stale.map(({ storage, key }) => storage.delete(key).catch(() => undefined)));
    },
  };
}

/** The prefix of a storage field's keys: its own, or `admin/<view>/<column>/`. */
function keyPrefix(view: ResolvedView, column: string): string {
  return view.view.files?.[column]?.keyPrefix ?? `admin/${view.name}/${column}/`;
}

/** The file name's extension when it is a plain one (`.pdf`), so a stored key keeps its kind; otherwise none. */
function extension(filename: string): string {
  const match = /\.[A-Za-z0-9]{1,16}$/.exec(filename);
  return match ? match[0].toLowerCase() : '';
}

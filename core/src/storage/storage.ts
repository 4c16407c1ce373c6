import type { Readable } from 'node:stream';

/** An object read back from a store: its bytes (whole or streamed) and what the store knows of it. */
export interface StoredObject {
  body: Uint8Array | Readable;
  contentType?: string;
  size?: number;
}

/**
 * Where uploaded files live (a local folder, an S3 bucket): every process of an app that
 * shares one store sees the same files. Keys are relative paths the app chose itself
 * (`avatars/1f….png`), never a client's file name.
 */
export interface Storage {
  /** Writes the object under `key` (a new key: callers generate unique names). */
  put(key: string, data: Uint8Array, options: { contentType: string }): Promise<void>;
  /** The object under `key`, or `null` when there is none. */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object under `key`; a missing one is not an error. */
  delete(key: string): Promise<void>;
}

// Path segments of letters, digits, dot, dash and underscore; no empty, `.` or `..` segment.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

/** Throws unless `key` is a relative path of plain segments: a key can never leave the store's folder or prefix. */
export function checkStorageKey(key: string): string {
  const ok =
    key.length > 0 &&
    key.length <= MAX_KEY_LENGTH &&
    key.split('/').every((segment) => SEGMENT.test(segment) && segment !== '..');
  if (!ok) throw new TypeError(`Not a storage key: ${JSON.stringify(key.slice(0, 80))}`);
  return key;
}

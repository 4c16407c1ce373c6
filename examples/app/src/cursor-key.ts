import { createHmac } from 'node:crypto';
import type { CrudOptions } from '@crudsmith/core';

/** The app's secret, or the provider that finds it (see `secretKeyProvider`). */
export type Secret = string | (() => string | Promise<string>);

// The secret also signs access tokens: a key of its own for cursors means neither use
// can ever stand in for the other, and the secret itself is never the HMAC key of
// something a client holds.
const PURPOSE = 'crudsmith-example/cursor-key';

/**
 * The key that signs keyset cursors (`next_cursor`), derived from the app's secret. The
 * same secret gives the same key on every process of a deployment and after a restart,
 * so a cursor handed out by one process is accepted by all of them. A provider stays
 * lazy: it is asked when the first cursor is signed or read.
 */
export function cursorKeyFrom(secret: string): Buffer;
export function cursorKeyFrom(secret: Secret): NonNullable<CrudOptions['cursorKey']>;
export function cursorKeyFrom(secret: Secret): NonNullable<CrudOptions['cursorKey']> {
  if (typeof secret === 'string') return derive(secret);
  return async () => derive(await secret());
}

function derive(secret: string): Buffer {
  return createHmac('sha256', secret).update(PURPOSE).digest();
}

import { randomUUID } from 'node:crypto';

/** The longest incoming request id kept; a longer one is replaced. */
export const MAX_REQUEST_ID_LENGTH = 128;

// Letters, digits and the punctuation of common id formats (UUIDs, ULIDs, base64, `a:b/c`):
// nothing that could split a log line or a header. Checked only after the length.
const SAFE_ID = /^[A-Za-z0-9._:/+=@-]+$/;

/** A fresh request id (a random UUID). */
export function newRequestId(): string {
  return randomUUID();
}

/**
 * The id a request goes by: the client's `X-Request-Id` when it is one value of at most
 * `MAX_REQUEST_ID_LENGTH` safe characters, so a caller's id follows its request through
 * the logs; anything else (absent, repeated, too long, other characters) gets a fresh one.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_REQUEST_ID_LENGTH) return newRequestId();
  return SAFE_ID.test(header) ? header : newRequestId();
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh random value of `bytes` bytes (32: 256 bits), base64url-encoded. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 of a secret, hex: how session ids (and other bearer secrets) are stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two strings in time that depends on their length only. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // Compare equal-length buffers either way, so a length mismatch costs the same.
  return timingSafeEqual(x.length === y.length ? x : y, y) && x.length === y.length;
}

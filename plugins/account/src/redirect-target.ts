// A `redirect_to` is echoed only when it stays on this site: a path of its own origin.

/** Longest `redirect_to` kept. */
const MAX_LENGTH = 2048;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `value` when it is a same-origin relative path (`/x`, `/x?y#z`), otherwise undefined:
 * never `//host` or `/\host` (which browsers read as another host), a scheme, a host,
 * a backslash or a control character anywhere (browsers strip tabs and newlines, which
 * would turn `/\t/host` into `//host`).
 */
export function safeRedirect(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\') || CONTROL.test(value)) return undefined;
  // Belt and braces: resolved against a placeholder origin, it must stay on that origin.
  const base = 'http://same-origin.invalid';
  try {
    return new URL(value, base).origin === base ? value : undefined;
  } catch {
    return undefined;
  }
}

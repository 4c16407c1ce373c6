// A `redirect_to` is echoed only when it stays on this site: a path of its own origin.

/** Longest `redirect_to` kept. */
const MAX_LENGTH = 2048;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `value` when it is a same-origin relative path (`/x`, `/x?y#z`), otherwise undefined:
 * never `//host` or `/\host` (which browsers read as another host), a scheme, a host,
 * a backslash or a control character anywhere (browsers strip tabs and newlines, which
 * would turn `/\t/host` into `//host`), nor a path that normalising changes (dot segments,
 * characters a URL escapes).
 */
export function safeRedirect(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\') || CONTROL.test(value)) return undefined;
  // Resolved against a placeholder origin, it must stay on that origin, and its path must
  // be the one written: a dot segment (`/..//host`, `/.%2e//host`) resolves to `//host`,
  // which a redirect built from the resolved URL would send off-site.
  const base = 'http://same-origin.invalid';
  try {
    const resolved = new URL(value, base);
    const path = value.split(/[?#]/, 1)[0];
    return resolved.origin === base && resolved.pathname === path && !resolved.pathname.startsWith('//')
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

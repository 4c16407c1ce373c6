import type { CookieToSet } from '@crudsmith/core';

/** Cookie attributes every cookie of the plugin shares: SameSite=Lax, Path=/, host-only (no Domain). */
export function cookie(
  name: string,
  value: string,
  options: { secure: boolean; httpOnly: boolean; maxAge: number },
): CookieToSet {
  return {
    name,
    value,
    httpOnly: options.httpOnly,
    secure: options.secure,
    sameSite: 'lax',
    path: '/',
    maxAge: options.maxAge,
  };
}

/** A cookie that removes `name` from the browser. */
export function clearCookie(name: string, options: { secure: boolean; httpOnly: boolean }): CookieToSet {
  return { ...cookie(name, '', { ...options, maxAge: 0 }), expires: new Date(0) };
}

import type { NeutralRequest, NeutralResult } from '../http/neutral';

// `Prefer: return=…` (RFC 7240) on the generated writes. A preference is a wish, not an
// order: an unknown or malformed one is ignored, and `Preference-Applied` names the one
// that shaped the answer.

/** What a write answers: the row, or nothing (204); undefined keeps the route's usual answer. */
export type ReturnPreference = 'representation' | 'minimal' | undefined;

/** The `return` preference of the request's `Prefer` header(s); the first one given wins. */
export function returnPreference(req: NeutralRequest): ReturnPreference {
  const header = req.headers.prefer;
  // A few preferences at most; a longer header is no client's honest wish.
  if (header === undefined || header.length > 1024) return undefined;
  for (const part of header.split(/[,;]/)) {
    const match = /^\s*return\s*=\s*"?(representation|minimal)"?\s*$/i.exec(part);
    if (match) return match[1].toLowerCase() as ReturnPreference;
  }
  return undefined;
}

/**
 * The answer under the preference: 204 without a body for `minimal`, the answer as it is
 * otherwise; either way `Preference-Applied` says which preference was honoured.
 */
export function answerAsPreferred(result: NeutralResult, preference: ReturnPreference): NeutralResult {
  if (!preference) return result;
  const headers = { ...result.headers, 'preference-applied': `return=${preference}` };
  if (preference === 'minimal') return { status: 204, headers };
  return { ...result, headers };
}

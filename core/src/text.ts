// What text no engine can store or compare. PostgreSQL refuses the NUL character in text
// and jsonb (a driver error, so a 500), and a lone UTF-16 surrogate cannot be encoded as
// UTF-8 by any driver. One rule, asked of every string a client sends (query values as
// they are coerced, body strings and keys as they are read), answers 422 on every engine.

// A character class only: one pass over the text, no backtracking. NUL is what it looks for.
// eslint-disable-next-line no-control-regex
const HAZARD = /[\u0000\ud800-\udfff]/;

/** Why `text` cannot be stored, or undefined when it can. */
export function textProblem(text: string): { msg: string; type: string } | undefined {
  if (!HAZARD.test(text)) return undefined;
  if (text.includes('\u0000')) return { msg: 'Text may not contain the NUL character (U+0000)', type: 'string_nul' };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    // A high surrogate followed by a low one is one character; anything else is lone.
    if (c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return { msg: 'Text may not contain a lone UTF-16 surrogate', type: 'string_unicode' };
  }
  return undefined;
}

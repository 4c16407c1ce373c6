// SQLite plans a statement when it is prepared, but some plans look at a bound value:
// with the `sqlite_stat4` table that ANALYZE (or `PRAGMA optimize`) writes, a value
// compared with an indexed column is weighed against the samples of that index; a bound
// LIMIT is read for the planner too. Such a statement is marked to be compiled again each
// time a value is bound, so a kept statement would be parsed and planned at every run
// (measured: half the cost of a read by key, more in a loaded server than in a loop).
// Writing the value as `+?` (a unary plus, which changes no value and gives none an
// affinity a bare parameter lacks) hides it from that look, and the statement keeps the
// plan it was prepared with, the one the table's averages give: what PostgreSQL's generic
// plans do. The pattern of LIKE and GLOB stays bare: SQLite uses a pattern's fixed prefix
// to search an index, and that look is worth a compile. A value followed by COLLATE stays
// bare as well, so its collation reads as written.

const BARE_AFTER = new Set(['like', 'glob', 'match', 'regexp', 'escape']);

interface Token {
  text: string;
  /** A word, a placeholder, spaces and comments, or anything else (quoted text, operators, punctuation). */
  kind: 'word' | 'placeholder' | 'space' | 'other';
}

/** The SQL with every bound value SQLite would plan around written `+?` (see above). */
export function stablePlaceholders(sql: string): string {
  if (!sql.includes('?')) return sql;
  const tokens = tokenize(sql);
  let out = '';
  let previous: Token | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === 'placeholder' && !bareAfter(previous) && !collatedNext(tokens, i)) out += '+';
    out += token.text;
    if (token.kind !== 'space') previous = token;
  }
  return out;
}

function bareAfter(previous: Token | undefined): boolean {
  return previous?.kind === 'word' && BARE_AFTER.has(previous.text.toLowerCase());
}

function collatedNext(tokens: Token[], at: number): boolean {
  for (let i = at + 1; i < tokens.length; i++) {
    const { text, kind } = tokens[i];
    if (kind !== 'space') return kind === 'word' && text.toLowerCase() === 'collate';
  }
  return false;
}

// One pass over the SQL: quoted strings and identifiers, comments and spaces are kept
// whole (a `?` inside them is no placeholder); words and placeholders are told apart.
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const start = i;
    const c = sql[i];
    let kind: Token['kind'] = 'other';
    if (c === "'" || c === '"' || c === '`') i = closing(sql, i, c);
    else if (c === '[') i = until(sql, i, ']');
    else if (c === '-' && sql[i + 1] === '-') [i, kind] = [until(sql, i, '\n'), 'space'];
    else if (c === '/' && sql[i + 1] === '*') [i, kind] = [until(sql, i + 1, '*/'), 'space'];
    else if (isSpace(c)) {
      while (i < sql.length && isSpace(sql[i])) i++;
      kind = 'space';
    } else if (c === '?') {
      i++;
      while (i < sql.length && isDigit(sql[i])) i++;
      tokens.push({ text: sql.slice(start, i), kind: 'placeholder' });
      continue;
    } else if (isWordStart(c)) {
      while (i < sql.length && isWordPart(sql[i])) i++;
      tokens.push({ text: sql.slice(start, i), kind: 'word' });
      continue;
    } else i++;
    tokens.push({ text: sql.slice(start, i), kind });
  }
  return tokens;
}

/** The index after a quoted run opened at `at` by `quote`, a doubled quote standing for itself. */
function closing(sql: string, at: number, quote: string): number {
  let i = at + 1;
  while (i < sql.length) {
    if (sql[i] !== quote) i++;
    else if (sql[i + 1] === quote) i += 2;
    else return i + 1;
  }
  return i;
}

/** The index after the first `end` found past `at` (the end of the SQL when none). */
function until(sql: string, at: number, end: string): number {
  const found = sql.indexOf(end, at + 1);
  return found === -1 ? sql.length : found + end.length;
}

const isSpace = (c: string) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f';
const isDigit = (c: string) => c >= '0' && c <= '9';
const isWordStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c > '\u007f';
const isWordPart = (c: string) => isWordStart(c) || isDigit(c) || c === '$';

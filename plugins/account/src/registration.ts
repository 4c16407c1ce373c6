import { DuplicateValueError, ValidationError, type ValidationIssue } from '@crudsmith/core';
import type { AccountCore } from './account-core';
import type { AccountUser } from './options';
import { normalizeIdentifier } from './users';

type Row = Record<string, unknown>;

// Single-character classes with no quantifier: each scans its input once (linear time),
// whatever the client sends.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const SPACE = /\s/;

/**
 * Whether `value` looks like an e-mail address: one @ with something before it, a dot in
 * the domain with something on each side, no spaces. Deliberately loose (RFC 5321 allows
 * far more than any pattern checks well); ownership is what a verification mail proves.
 * Written with indexOf rather than a pattern: the pattern this replaces backtracked in
 * quadratic time (`a@` and 120,000 dots held the event loop for 25 s).
 */
export function looksLikeEmail(value: string): boolean {
  const at = value.indexOf('@');
  if (at < 1 || value.indexOf('@', at + 1) !== -1 || SPACE.test(value)) return false;
  const domain = value.slice(at + 1);
  // A dot with at least one character before it and one after it.
  const dot = domain.indexOf('.', 1);
  return dot !== -1 && dot < domain.length - 1;
}

/** The new user's fields: the identifiers, the password and any other column value. */
export interface NewUser {
  username: string;
  email?: string | null;
  password: string;
  [column: string]: unknown;
}

/**
 * Validates and creates a user: identifiers in NFKC and within their columns (422 when
 * longer), a password that passes the policy, no case variant of an existing username or
 * e-mail (409; the table's unique indexes back this up). Privileged flags come only from
 * `flags`, never from the input.
 */
export async function createUser(
  core: AccountCore,
  given: NewUser,
  flags: { superuser?: boolean; verified?: boolean } = {},
  client?: string,
): Promise<AccountUser> {
  const { users } = core;
  // Stored as sign-in will look them up (NFKC): every check below sees the stored form.
  const input: NewUser = { ...given };
  if (typeof given.username === 'string') input.username = normalizeIdentifier(given.username);
  if (typeof given.email === 'string') input.email = normalizeIdentifier(given.email);
  const { columns } = users;
  const issues: ValidationIssue[] = [];
  const values: Row = {};
  for (const [field, value] of Object.entries(input)) {
    if (field === 'password' || value === undefined) continue;
    const column = field === 'username' ? columns.username : field === 'email' ? columns.email : field;
    if (!column || !users.info.columns.has(column)) {
      issues.push({ loc: ['body', field], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    issues.push(...checkLength(core, field, column, value));
    values[column] = value;
  }
  // Lengths first: the identifier and password checks below only ever see values that
  // fit their columns (a 120 KB e-mail is refused for its length, never scanned).
  const tooLong = new Set(issues.map((issue) => issue.loc[1]));
  issues.push(...checkIdentifiers(input, columns.email !== null, tooLong));
  issues.push(...core.passwords.check(input.password, ['body', 'password'], contextWords(input)));
  if (issues.length > 0) throw new ValidationError(issues);

  if (await users.taken(columns.username, input.username)) throw new DuplicateValueError('Username already registered');
  if (columns.email && input.email && (await users.taken(columns.email, input.email)))
    throw new DuplicateValueError('Email already registered');
  // `client` (the caller's address, at /register or a request's createUser) bounds its
  // concurrent hashing; the app's own calls (a first superuser) only overall.
  values[columns.passwordHash] = await core.passwords.bounded(client, () => core.passwords.hash(input.password));
  if (columns.isSuperuser) values[columns.isSuperuser] = flags.superuser ?? false;
  if (columns.isVerified) values[columns.isVerified] = flags.verified ?? false;
  return core.publicUser(await users.insert(values));
}

/** Context words a password may not equal: the username, the e-mail and its local part. */
export function contextWords(input: { username?: unknown; email?: unknown }): string[] {
  const words: string[] = [];
  if (typeof input.username === 'string') words.push(input.username);
  if (typeof input.email === 'string') words.push(input.email, input.email.split('@')[0]);
  return words;
}

function checkIdentifiers(input: NewUser, hasEmail: boolean, refused: Set<unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { username, email } = input;
  if (typeof username !== 'string' || username.length === 0) {
    if (!refused.has('username'))
      issues.push({
        loc: ['body', 'username'],
        msg: 'Field required (a non-empty string)',
        type: username === undefined ? 'missing' : 'string_type',
      });
  } else if (refused.has('username')) {
    // Already refused for its length (or type).
  } else if (username.includes('@') || SPACE.test(username) || CONTROL.test(username)) {
    // No @: sign-in reads an identifier with @ as an e-mail address.
    issues.push({
      loc: ['body', 'username'],
      msg: 'Username may not contain @, spaces or control characters',
      type: 'value_error',
    });
  }
  if (hasEmail) {
    if (refused.has('email')) return issues;
    if (typeof email !== 'string')
      issues.push({
        loc: ['body', 'email'],
        msg: 'Field required (a string)',
        type: email === undefined ? 'missing' : 'string_type',
      });
    else if (!looksLikeEmail(email))
      issues.push({ loc: ['body', 'email'], msg: 'Not a valid e-mail address', type: 'value_error' });
  }
  return issues;
}

function checkLength(core: AccountCore, field: string, column: string, value: unknown): ValidationIssue[] {
  const info = core.users.info.columns.get(column);
  if (value === null && info?.nullable) return [];
  if (typeof value !== 'string')
    return [{ loc: ['body', field], msg: 'Input should be a valid string', type: 'string_type' }];
  const max = info?.maxLength;
  if (max !== undefined && [...value].length > max) {
    return [{ loc: ['body', field], msg: `String should have at most ${max} characters`, type: 'string_too_long' }];
  }
  return [];
}

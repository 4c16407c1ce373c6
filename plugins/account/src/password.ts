import { dictionary } from '@zxcvbn-ts/language-common';
import type { ValidationIssue } from '@crudsmith/core';
import { HashPool, PasswordHasher, normalizePassword } from '@crudsmith/core/auth';
import type { PasswordPolicyOptions } from './options';

let common: Set<string> | undefined;

/** The common-password list (zxcvbn's, ranked by frequency), entries the length rule lets through. */
function commonPasswords(): Set<string> {
  common ??= new Set(
    dictionary['passwords-common'].filter((word) => [...word].length >= 8).map((word) => word.toLowerCase()),
  );
  return common;
}

/** Hashing and verification (the core's, shared with the admin) and the policy, with the app's settings. */
export class Passwords extends PasswordHasher {
  readonly minLength: number;
  private readonly blocklist: Set<string>;

  constructor(options: PasswordPolicyOptions = {}, pool = new HashPool()) {
    super({ rounds: options.bcryptRounds ?? 12, maxLength: options.maxLength ?? 1024 }, pool);
    this.minLength = Math.max(8, options.minLength ?? 8);
    this.blocklist = new Set([...(options.blocklist ?? [])].map((w) => normalizePassword(w).toLowerCase()));
  }

  /** The problems of a new password, as 422 issues at `loc` (empty when it passes). */
  check(password: unknown, loc: (string | number)[], context: string[] = []): ValidationIssue[] {
    if (typeof password !== 'string')
      return [{ loc, msg: 'Field required (a string)', type: password === undefined ? 'missing' : 'string_type' }];
    const normalized = normalizePassword(password);
    const length = [...normalized].length;
    if (length < this.minLength)
      return [{ loc, msg: `Password must be at least ${this.minLength} characters`, type: 'string_too_short' }];
    if (length > this.maxLength)
      return [{ loc, msg: `Password must be at most ${this.maxLength} characters`, type: 'string_too_long' }];
    if (normalized.includes('\u0000'))
      return [{ loc, msg: 'Password may not contain a NUL character', type: 'value_error' }];
    const lower = normalized.toLowerCase();
    if (commonPasswords().has(lower) || this.blocklist.has(lower)) {
      return [{ loc, msg: 'This password is too common; choose another', type: 'password_common' }];
    }
    for (const word of context) {
      if (word && lower === normalizePassword(word).toLowerCase()) {
        return [{ loc, msg: 'Password may not be your username or e-mail address', type: 'password_context' }];
      }
    }
    return [];
  }
}

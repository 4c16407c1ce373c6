import { ValidationError, type NeutralRequest } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import { bodyObject } from '../body';
import { looksLikeEmail } from '../registration';
import { normalizeIdentifier } from '../users';

// Longest phone number as typed (spaces, dashes, dots and brackets allowed around the digits).
const MAX_PHONE_INPUT = 32;
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * An e-mail address from the body field `field`: a string, no longer than `column`
 * allows (checked first), shaped like an address; 422 otherwise. Answered in NFKC, the
 * form the plugin stores and compares.
 */
export function emailField(core: AccountCore, req: NeutralRequest, field: string, column: string): string {
  const value = bodyObject(req)[field];
  if (value === undefined || value === null) throw ValidationError.of(['body', field], 'Field required', 'missing');
  if (typeof value !== 'string')
    throw ValidationError.of(['body', field], 'Input should be a valid string', 'string_type');
  const max = core.users.info.columns.get(column)?.maxLength ?? 320;
  if ([...value].length > max)
    throw ValidationError.of(['body', field], `String should have at most ${max} characters`, 'string_too_long');
  const normalized = normalizeIdentifier(value).trim();
  if (!looksLikeEmail(normalized))
    throw ValidationError.of(['body', field], 'Not a valid e-mail address', 'value_error');
  return normalized;
}

/** A phone number from the body field `phone`, answered in E.164 (`+` and digits only); 422 otherwise. */
export function phoneField(req: NeutralRequest): string {
  const value = bodyObject(req).phone;
  if (value === undefined || value === null) throw ValidationError.of(['body', 'phone'], 'Field required', 'missing');
  if (typeof value !== 'string')
    throw ValidationError.of(['body', 'phone'], 'Input should be a valid string', 'string_type');
  if (value.length > MAX_PHONE_INPUT)
    throw ValidationError.of(
      ['body', 'phone'],
      `String should have at most ${MAX_PHONE_INPUT} characters`,
      'string_too_long',
    );
  const compact = value.replace(/[\s().-]/g, '');
  if (!E164.test(compact))
    throw ValidationError.of(
      ['body', 'phone'],
      'Not a phone number in international form (+ and 7 to 15 digits)',
      'value_error',
    );
  return compact;
}

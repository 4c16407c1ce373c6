import { DuplicateValueError, ValidationError, mapDatabaseError } from '@crudsmith/core';
import { randomToken } from '@crudsmith/core/auth';
import type { AccountCore } from '../account-core';
import { looksLikeEmail } from '../registration';
import { normalizeIdentifier } from '../users';
import { OAuthFlowError, type OAuthErrorCode } from './oauth-options';
import type { OAuthStore } from './oauth-store';
import type { ProviderIdentity } from './oidc-provider';

type Row = Record<string, unknown>;

/**
 * The account an identity signs in to: the one it is linked to; else the live account
 * with the same address (up to ASCII case), when the provider says the address is
 * verified (and, where the model keeps the flag, the account verified it too), which the
 * link then takes over (signed out everywhere, its password removed); else a new account
 * without a password (it sets one with /set-password after a fresh sign-in).
 */
export async function accountFor(
  core: AccountCore,
  store: OAuthStore,
  signIn: { provider: string; identity: ProviderIdentity; redirectTo: string },
): Promise<Row> {
  const { users } = core;
  const { provider, identity, redirectTo } = signIn;
  const fail = (code: OAuthErrorCode) => new OAuthFlowError(code, redirectTo);
  const linked = await store.linkedUser(provider, identity.subject);
  if (linked !== null) {
    const row = await users.findById(linked);
    if (!row) throw fail('account_deleted');
    return row;
  }
  const emailColumn = users.columns.email;
  const email = identity.email === null ? null : identity.email.trim();
  const max = emailColumn ? users.info.columns.get(emailColumn)?.maxLength : undefined;
  if (!emailColumn || !email || !looksLikeEmail(email) || (max !== undefined && [...email].length > max))
    throw fail('email_missing');
  // Stored addresses are NFKC: a provider's address that NFKC changes (full-width letters,
  // ligatures) is another mailbox that would fold onto someone's account, so it is refused.
  if (normalizeIdentifier(email) !== email) throw fail('email_unsupported');
  if (!identity.emailVerified) throw fail('email_unverified');

  for (let attempt = 0; attempt < 3; attempt++) {
    let row = await users.findForLogin(email);
    let created = false;
    if (row) {
      // Sign-in folds case everywhere; a provider's address links only to the same one up
      // to ASCII case (`Ö@x` and `ö@x` may be two mailboxes).
      if (asciiLower(String(row[emailColumn])) !== asciiLower(email)) throw fail('email_unsupported');
      if (users.columns.isVerified && !users.flag(row, users.columns.isVerified)) throw fail('account_unverified');
    } else {
      // The address belongs to a soft-deleted account: it stays signed out.
      if (await users.taken(emailColumn, email)) throw fail('account_deleted');
      // A claim the user model refuses (a name it cannot store...) ends on the redirect, not a raw 422.
      row = await createAccount(core, identity, email).catch((error: unknown) => {
        throw error instanceof ValidationError ? fail('provider_error') : error;
      });
      if (!row) continue;
      created = true;
    }
    const userId = String(users.idOf(row));
    if (await store.hasIdentity(provider, userId)) throw fail('identity_conflict');
    if (await store.link(provider, identity.subject, userId, core.now())) return created ? row : takeOver(core, row);
    // A concurrent callback linked first: whichever identity won decides (and took the account over).
    const winner = await store.linkedUser(provider, identity.subject);
    if (winner === userId) return (await users.findById(userId)) ?? row;
    throw fail('identity_conflict');
  }
  throw fail('provider_error');
}

/**
 * An existing account the provider's owner of its address now holds. Whoever set it up
 * before the link may not be that owner (someone who registered the address first and had
 * the owner click the verification mail): every session and token of the account ends,
 * and its password stops working. The owner sets a new one at /set-password.
 */
async function takeOver(core: AccountCore, row: Row): Promise<Row> {
  const id = core.users.idOf(row);
  await core.users.clearPasswordHash(id);
  await core.signOutEverywhere(id);
  return (await core.users.findById(id)) ?? row;
}

function asciiLower(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** A new account for the identity, or null when a concurrent callback created it first. */
async function createAccount(core: AccountCore, identity: ProviderIdentity, email: string): Promise<Row | null> {
  const { users } = core;
  const { columns } = users;
  const values: Row = { [columns.email!]: email, [columns.passwordHash]: null };
  if (columns.isVerified) values[columns.isVerified] = true;
  if (columns.isSuperuser) values[columns.isSuperuser] = false;
  const name = users.info.columns.get('name');
  if (name) values.name = cut(identity.name ?? identity.preferredUsername ?? '', name.maxLength);
  const base = usernameBase(identity, email, users.info.columns.get(columns.username)?.maxLength ?? 30);
  for (let attempt = 0; attempt < 5; attempt++) {
    const username =
      attempt === 0
        ? base.name
        : `${base.name.slice(0, base.max - 7)}-${randomToken(4)
            .replace(/[^A-Za-z0-9]/g, 'x')
            .slice(0, 6)}`;
    if (await users.taken(columns.username, username)) continue;
    try {
      return await users.insert({ ...values, [columns.username]: username });
    } catch (error) {
      if (!(mapDatabaseError(error) instanceof DuplicateValueError)) throw error;
      // The address was taken meanwhile (a concurrent callback): the caller looks again.
      if (await users.taken(columns.email!, email)) return null;
    }
  }
  throw new OAuthFlowError('provider_error');
}

/** A username from the provider's preferred one or the address's local part: letters, digits, `.`, `_`, `-`. */
function usernameBase(identity: ProviderIdentity, email: string, max: number): { name: string; max: number } {
  const raw = identity.preferredUsername ?? email.split('@')[0];
  const clean = raw
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .slice(0, max);
  return {
    name:
      clean.length >= 2
        ? clean
        : `user-${randomToken(4)
            .replace(/[^A-Za-z0-9]/g, 'x')
            .slice(0, 6)}`,
    max,
  };
}

function cut(value: string, max: number | undefined): string {
  return max === undefined ? value : [...value].slice(0, max).join('');
}

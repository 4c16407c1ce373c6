import { DuplicateValueError, mapDatabaseError, randomToken } from '@crudsmith/core';
import type { AccountCore } from '../account-core';
import { looksLikeEmail } from '../registration';
import { normalizeIdentifier } from '../users';
import { OAuthFlowError, type OAuthErrorCode } from './oauth-options';
import type { OAuthStore } from './oauth-store';
import type { ProviderIdentity } from './oidc-provider';

type Row = Record<string, unknown>;

/**
 * The account an identity signs in to: the one it is linked to; else the live account
 * with the same address, when the provider says the address is verified (and, where the
 * model keeps the flag, the account verified it too: otherwise whoever registered the
 * address first could wait for its owner to sign in); else a new account without a
 * password (it sets one with /set-password after a fresh sign-in).
 */
export async function accountFor(core: AccountCore, store: OAuthStore, signIn: { provider: string; identity: ProviderIdentity; redirectTo: string }): Promise<Row> {
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
  const email = identity.email === null ? null : normalizeIdentifier(identity.email).trim();
  const max = emailColumn ? users.info.columns.get(emailColumn)?.maxLength : undefined;
  if (!emailColumn || !email || !looksLikeEmail(email) || (max !== undefined && [...email].length > max)) throw fail('email_missing');
  if (!identity.emailVerified) throw fail('email_unverified');

  for (let attempt = 0; attempt < 3; attempt++) {
    let row = await users.findForLogin(email);
    if (row) {
      if (users.columns.isVerified && !users.flag(row, users.columns.isVerified)) throw fail('account_unverified');
    } else {
      // The address belongs to a soft-deleted account: it stays signed out.
      if (await users.taken(emailColumn, email)) throw fail('account_deleted');
      row = await createAccount(core, identity, email);
      if (!row) continue;
    }
    const userId = String(users.idOf(row));
    if (await store.hasIdentity(provider, userId)) throw fail('identity_conflict');
    if (await store.link(provider, identity.subject, userId, core.now())) return row;
    // A concurrent callback linked first: whichever identity won decides.
    const winner = await store.linkedUser(provider, identity.subject);
    if (winner === userId) return row;
    throw fail('identity_conflict');
  }
  throw fail('provider_error');
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
    const username = attempt === 0 ? base.name : `${base.name.slice(0, base.max - 7)}-${randomToken(4).replace(/[^A-Za-z0-9]/g, 'x').slice(0, 6)}`;
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
  const clean = raw.normalize('NFKC').replace(/[^A-Za-z0-9._-]/g, '').slice(0, max);
  return { name: clean.length >= 2 ? clean : `user-${randomToken(4).replace(/[^A-Za-z0-9]/g, 'x').slice(0, 6)}`, max };
}

function cut(value: string, max: number | undefined): string {
  return max === undefined ? value : [...value].slice(0, max).join('');
}

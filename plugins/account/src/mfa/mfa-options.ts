import type { ChallengeStore } from './challenges';
import type { AccountUser } from '../account-user';

/** Two-factor authentication: TOTP authenticator apps, with single-use recovery codes. */
export interface MfaOptions {
  /** Accounts that must use it (default: none). Such an account enrolls at its next sign-in and cannot turn it off. */
  required?: (user: AccountUser) => boolean;
  /** The name authenticator apps show beside the account (default `crudsmith`). */
  issuer?: string;
  /** How long a sign-in challenge lives (default 300 s). */
  challengeSeconds?: number;
  /** Where challenges live (default: the database; Redis through `RedisChallengeStore` of `@crudsmith/account/redis`). */
  challengeStore?: ChallengeStore;
  /** Table names (defaults `account_mfa`, `account_mfa_recovery_codes`, `account_mfa_challenges`). */
  tables?: { enrollments?: string; recoveryCodes?: string; challenges?: string };
}

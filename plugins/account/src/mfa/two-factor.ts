import { createHmac } from 'node:crypto';
import { BadRequestError, ForbiddenError, RateLimitError, UnauthorizedError } from '@crudsmith/core';
import type { Knex } from 'knex';
import type { AccountCore } from '../account-core';
import { KnexChallengeStore, challengeMigration, type ChallengeStore } from './challenges';
import { RecoveryCodes, recoveryCodeMigration } from './recovery-codes';
import { SecretBox } from './secret-box';
import { matchTotp, newTotpSecret, totpUri } from './totp';
import { Enrollments, enrollmentMigration } from './enrollments';
import type { MfaOptions } from './mfa-options';

type Row = Record<string, unknown>;

export const WRONG_CODE = 'Invalid authentication code';
export const MFA_ALREADY_ENABLED = 'Two-factor authentication is already enabled';
export const MFA_NOT_ENABLED = 'Two-factor authentication is not enabled';

/** What `GET /mfa` answers. */
export interface MfaStatus {
  enabled: boolean;
  required: boolean;
  recovery_codes_remaining: number;
}

/**
 * Two-factor authentication of the accounts: enrollment, codes (TOTP, each time step
 * once; recovery codes, each once), and the challenges sign-ins stop at. Every wrong
 * code counts toward a per-account lockout (the sign-in lockout's policy), so neither
 * a challenge restarted with the password nor a stolen session can guess codes freely.
 */
export class TwoFactor {
  readonly enrollments: Enrollments;
  readonly recoveryCodes: RecoveryCodes;
  readonly challenges: ChallengeStore;
  readonly challengeMs: number;
  readonly tables: { enrollments: string; recoveryCodes: string; challenges: string };
  private readonly box: SecretBox;
  private readonly issuer: string;
  private readonly knex: Knex;

  constructor(
    private readonly core: AccountCore,
    private readonly options: MfaOptions,
  ) {
    const secret = core.secret;
    this.tables = {
      enrollments: 'account_mfa',
      recoveryCodes: 'account_mfa_recovery_codes',
      challenges: 'account_mfa_challenges',
      ...options.tables,
    };
    this.knex = core.options.knex;
    const knex = this.knex;
    this.box = new SecretBox(secret, 'totp-secret');
    this.enrollments = new Enrollments(knex, this.tables.enrollments);
    this.recoveryCodes = new RecoveryCodes(knex, this.tables.recoveryCodes, () =>
      secret().then((s) => createHmac('sha256', s).update('crudsmith/account/recovery-codes').digest()),
    );
    this.challenges = options.challengeStore ?? new KnexChallengeStore(knex, this.tables.challenges);
    this.challengeMs = (options.challengeSeconds ?? 300) * 1000;
    this.issuer = options.issuer ?? 'crudsmith';
  }

  /** The plugin's MFA tables, in migration order. */
  migrations() {
    return {
      '0005_mfa_enrollments': enrollmentMigration(this.tables.enrollments),
      '0006_mfa_recovery_codes': recoveryCodeMigration(this.tables.recoveryCodes),
      '0007_mfa_challenges': challengeMigration(this.tables.challenges),
    };
  }

  isRequired(row: Row): boolean {
    return this.options.required?.(this.core.publicUser(row)) ?? false;
  }

  async isEnabled(row: Row): Promise<boolean> {
    return (await this.enrollments.get(this.idOf(row)))?.enabled ?? false;
  }

  async status(row: Row): Promise<MfaStatus> {
    const enabled = await this.isEnabled(row);
    return {
      enabled,
      required: this.isRequired(row),
      recovery_codes_remaining: enabled ? await this.recoveryCodes.remaining(this.idOf(row)) : 0,
    };
  }

  /** A new secret for the account (not active until confirmed): 400 when it is enrolled already. */
  async beginSetup(row: Row): Promise<{ secret: string; otpauth_uri: string }> {
    const secret = newTotpSecret();
    if (!(await this.enrollments.begin(this.idOf(row), await this.seal(row, secret))))
      throw new BadRequestError(MFA_ALREADY_ENABLED);
    return this.setupDetails(row, secret);
  }

  /** What an authenticator app needs: the secret and its otpauth:// URI, labelled with the username. */
  setupDetails(row: Row, secret: string): { secret: string; otpauth_uri: string } {
    return { secret, otpauth_uri: totpUri(secret, this.issuer, String(row[this.core.users.columns.username])) };
  }

  /** Confirms the pending setup with a first code, answering the recovery codes: 400 without one, 401 for a wrong code. */
  async confirmSetup(row: Row, code: string): Promise<string[]> {
    const userId = this.idOf(row);
    const enrollment = await this.enrollments.get(userId);
    if (enrollment?.enabled) throw new BadRequestError(MFA_ALREADY_ENABLED);
    if (!enrollment) throw new BadRequestError('No two-factor setup is in progress; start one with /mfa/totp/setup');
    const secret = await this.box.open(enrollment.secret, userId);
    const step = await this.guarded(userId, () => matchTotp(secret, code, this.seconds()));
    if (!(await this.enrollments.confirm(userId, enrollment.secret, step, this.core.now()))) {
      throw new BadRequestError('The two-factor setup changed meanwhile; start again with /mfa/totp/setup');
    }
    return this.newRecoveryCodes(userId);
  }

  /** Enrolls with the secret a setup challenge carried, once its first code is right; answers the recovery codes. */
  async enrollFromChallenge(row: Row, sealed: string, code: string): Promise<string[]> {
    const userId = this.idOf(row);
    const step = await this.guarded(userId, async () =>
      matchTotp(await this.box.open(sealed, userId), code, this.seconds()),
    );
    if (!(await this.enrollments.enroll(userId, sealed, step, this.core.now())))
      throw new BadRequestError(MFA_ALREADY_ENABLED);
    return this.newRecoveryCodes(userId);
  }

  /** Turns two-factor off with a code: 403 while it is required, 400 when it is off, 401 for a wrong code. */
  async disable(row: Row, code: string): Promise<void> {
    if (this.isRequired(row)) throw new ForbiddenError('Two-factor authentication is required for this account');
    await this.checkCode(row, code);
    const userId = this.idOf(row);
    await this.knex.transaction(async (trx) => {
      await this.enrollments.remove(userId, trx);
      await this.recoveryCodes.clear(userId, trx);
    });
  }

  /** New recovery codes (the old ones stop working), with a code. */
  async regenerate(row: Row, code: string): Promise<string[]> {
    await this.checkCode(row, code);
    return this.newRecoveryCodes(this.idOf(row));
  }

  // Replaces the codes in one transaction holding the enrollment's row lock: concurrent
  // replacements run one after the other, each deleting what the one before inserted, so
  // exactly one set of codes stays. 400 when two-factor was turned off meanwhile.
  private async newRecoveryCodes(userId: string): Promise<string[]> {
    const codes = await this.recoveryCodes.prepare(userId, this.core.now());
    return this.knex.transaction(async (trx) => {
      if (!(await this.enrollments.lockEnabled(userId, trx))) throw new BadRequestError(MFA_NOT_ENABLED);
      return codes.store(trx);
    });
  }

  /**
   * Checks a second factor of an enrolled account and uses it up: a TOTP code (its time
   * step, once) or an unused recovery code. 400 when the account has no two-factor, 401
   * for a wrong or used code, 429 while the account's codes are locked out.
   */
  async checkCode(row: Row, code: string): Promise<'totp' | 'recovery'> {
    const userId = this.idOf(row);
    const enrollment = await this.enrollments.get(userId);
    if (!enrollment?.enabled) throw new BadRequestError(MFA_NOT_ENABLED);
    let kind: 'totp' | 'recovery' = 'totp';
    await this.guarded(userId, async () => {
      const step = await matchTotp(await this.box.open(enrollment.secret, userId), code, this.seconds());
      if (step !== null) return (await this.enrollments.useStep(userId, step)) ? step : null;
      kind = 'recovery';
      return (await this.recoveryCodes.use(userId, code, this.core.now())) ? 0 : null;
    });
    return kind;
  }

  /** Seals a TOTP secret for the account's row. */
  seal(row: Row, secret: string): Promise<string> {
    return this.box.seal(secret, this.idOf(row));
  }

  open(row: Row, sealed: string): Promise<string> {
    return this.box.open(sealed, this.idOf(row));
  }

  // One attempt of the account's code lockout around a check: taken before the check (so
  // concurrent guesses past the limit are refused unchecked), cleared by a success.
  private async guarded(userId: string, check: () => Promise<number | null>): Promise<number> {
    const key = `mfa:${userId}`;
    const attempt = await this.core.lockout.attempt(key, this.core.now());
    if (!attempt.allowed)
      throw new RateLimitError('Too many wrong authentication codes; try again later', {
        retryAfter: attempt.retryAfter,
      });
    const step = await check();
    if (step === null) {
      await this.core.lockout.fail(key, this.core.now());
      throw new UnauthorizedError(WRONG_CODE);
    }
    await this.core.lockout.succeed(key);
    return step;
  }

  private idOf(row: Row): string {
    return String(this.core.users.idOf(row));
  }

  private seconds(): number {
    return Math.floor(this.core.now() / 1000);
  }
}

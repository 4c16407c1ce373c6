import { ConfigurationError, RateLimitError, type NeutralRequest } from '@crudsmith/core';
import { hashSecret } from '@crudsmith/core/auth';
import type { AccountCore } from '../account-core';
import { AccountTokens, stateFingerprint, type AccountToken, type TokenPurpose } from './account-tokens';
import { MailRenderer, type MailKind, type MailLocals } from './mail/templates';
import type { MailTransport, MessageSender } from './mail/transport';
import type { RecoveryLogger, RecoveryOptions } from './recovery-options';

type Row = Record<string, unknown>;

const LINK_PATHS: Record<TokenPurpose, string> = {
  verify: '/verify-email',
  reset: '/reset-password',
  change: '/confirm-email-change',
};
const LIFETIMES: Record<TokenPurpose, number> = { verify: 86_400, reset: 3_600, change: 86_400 };

/**
 * What the e-mail and recovery routes share: the factor (the e-mail or phone column),
 * the tokens, the templates, the per-address limit, and deliveries that run after the
 * answer. Request routes answer before any lookup or mail, so neither the account's
 * existence nor the mail server's speed or failure shows in their answer or its timing.
 */
export class Recovery {
  readonly factor: 'email' | 'phone';
  /** The user column of the factor. */
  readonly column: string;
  readonly tokens: AccountTokens;
  readonly mail: MailTransport | null;
  private readonly messages: MessageSender | null;
  private readonly renderer: MailRenderer;
  private readonly publicUrl: string;
  private readonly logger: RecoveryLogger;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly core: AccountCore,
    readonly options: RecoveryOptions,
    table: string,
  ) {
    const { columns } = core.users;
    this.factor = options.factor ?? 'email';
    const column = this.factor === 'email' ? columns.email : columns.phone;
    if (!column)
      throw new ConfigurationError(
        `account: the ${this.factor} recovery factor needs a ${this.factor} column in the column map`,
      );
    this.column = column;
    this.mail = options.mail ?? null;
    this.messages = options.messages ?? null;
    if (this.factor === 'email' && !this.mail)
      throw new ConfigurationError('account: the e-mail recovery factor needs a mail transport (recovery.mail)');
    if (this.factor === 'phone' && !this.messages)
      throw new ConfigurationError('account: the phone recovery factor needs a message sender (recovery.messages)');
    const base = URL.canParse(options.publicUrl) ? new URL(options.publicUrl) : null;
    if (base?.protocol !== 'http:' && base?.protocol !== 'https:')
      throw new ConfigurationError(`account: recovery.publicUrl must be an http(s) URL, not '${options.publicUrl}'`);
    this.publicUrl = base.toString().replace(/\/+$/, '');
    this.renderer = new MailRenderer(options.templates);
    this.logger = options.logger ?? { warn: (message, details) => console.warn(message, details) };
    this.tokens = new AccountTokens(core.options.knex, table);
  }

  /** 429 once the caller's address used up its request-route calls of the window. */
  async limit(req: NeutralRequest): Promise<void> {
    const limit = this.options.requestRateLimit ?? { limit: 5, periodSeconds: 3600 };
    if (limit === false) return;
    const key = `mail:${hashSecret(req.clientAddress).slice(0, 32)}`;
    const { count, retryAfter } = await this.core.lockout.hit(key, limit.periodSeconds * 1000, this.core.now());
    if (count > limit.limit)
      throw new RateLimitError('Too many requests from this address; try again later', { retryAfter });
  }

  /** The live account whose factor is `value` (already normalised), or null. */
  async findByFactor(value: string): Promise<Row | null> {
    const { users } = this.core;
    // An e-mail is matched as sign-in matches it (NFKC, any case); a phone number exactly.
    if (this.factor === 'email') return users.findForLogin(value);
    const row = await this.core.options.knex(users.info.table).where(this.column, value).first(users.columns.id);
    return row ? users.findById(row[users.columns.id]) : null;
  }

  /** The fingerprint a token of `purpose` binds to: what must not change while it is out. */
  state(purpose: TokenPurpose, row: Row): string {
    const { users } = this.core;
    const factor = row[this.column] ?? null;
    if (purpose === 'verify') return stateFingerprint([purpose, factor, users.flag(row, users.columns.isVerified)]);
    if (purpose === 'reset') return stateFingerprint([purpose, factor, row[users.columns.passwordHash] ?? null]);
    // A change also dies with the token version: a new password, a sign-out everywhere or a
    // provider link taking the account over ends the link its former holder sent themselves.
    return stateFingerprint([purpose, row[users.columns.email!] ?? null, users.tokenVersionOf(row)]);
  }

  /** The account a live token of `purpose` belongs to, while it still fits the account's state; else null. */
  async redeemable(token: string, purpose: TokenPurpose): Promise<{ token: AccountToken; row: Row } | null> {
    const found = await this.tokens.find(token, purpose, this.core.now());
    if (!found) return null;
    const row = await this.core.users.findById(found.userId);
    if (!row || !this.tokens.fits(found, this.state(purpose, row))) return null;
    return { token: found, row };
  }

  /** Issues a token of `purpose` for the account and sends its link to `to` (by the factor's channel, or by mail for a change). */
  async sendToken(purpose: TokenPurpose, row: Row, to: string, payload: Record<string, string>): Promise<void> {
    const seconds = this.options.tokenSeconds?.[purpose] ?? LIFETIMES[purpose];
    const userId = String(this.core.users.idOf(row));
    const token = await this.tokens.issue(
      { purpose, userId, state: this.state(purpose, row), payload },
      seconds * 1000,
      this.core.now(),
    );
    const path = this.options.links?.[purpose] ?? LINK_PATHS[purpose];
    const link = `${this.publicUrl}${path}?token=${encodeURIComponent(token)}`;
    const locals = this.locals(row, {
      link,
      expiresIn: duration(seconds),
      address: to,
      newAddress: payload.email ?? '',
    });
    if (purpose !== 'change' && this.factor === 'phone')
      await this.messages!.send(this.renderer.renderText(purpose, to, locals));
    else await this.mail!.send(this.renderer.render(purpose, to, locals));
  }

  /** Tells the old address that the account's address changed. */
  async sendNotice(kind: MailKind, row: Row, to: string, newAddress: string): Promise<void> {
    await this.mail!.send(
      this.renderer.render(kind, to, this.locals(row, { link: '', expiresIn: '', address: to, newAddress })),
    );
  }

  /**
   * Runs `work` after the answer: a failure (a mail server down, a database error) is
   * logged with what it was for and never reaches the caller. The recipient's address is
   * kept out of the log; tokens never enter it.
   */
  background(purpose: string, recipient: string, work: () => Promise<void>): void {
    // Bounded: a flood from many addresses cannot pile up connections to the mail server.
    if (this.pending.size >= (this.options.maxPendingDeliveries ?? 100)) {
      this.logger.warn('account: a recovery message was dropped: too many deliveries in flight', { purpose });
      return;
    }
    const task = work()
      .catch((error: unknown) => {
        const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
        const message = error instanceof Error ? error.message.split(recipient).join('<recipient>') : String(error);
        this.logger.warn('account: a recovery message was not delivered', {
          purpose,
          code,
          responseCode,
          error: message.slice(0, 500),
        });
      })
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Resolves once every delivery started so far has finished (sent or failed). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private locals(row: Row, given: Omit<MailLocals, 'appName' | 'username'>): MailLocals {
    return {
      appName: this.options.appName ?? 'crudsmith',
      username: String(row[this.core.users.columns.username] ?? ''),
      ...given,
    };
  }
}

function duration(seconds: number): string {
  const [amount, unit] =
    seconds % 86_400 === 0
      ? [seconds / 86_400, 'day']
      : seconds % 3600 === 0
        ? [seconds / 3600, 'hour']
        : seconds % 60 === 0
          ? [seconds / 60, 'minute']
          : [seconds, 'second'];
  // 24 hours reads better than 1 day in a mail about a link.
  if (unit === 'day' && amount === 1) return '24 hours';
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

// @crudsmith/account: registration, passwords, sessions and bearer tokens over the app's user model.

/** The plugin factory and what it answers. */
export { account } from './account';
export type { AccountPlugin } from './account';
export type {
  AccountOptions,
  AccountUser,
  UserColumns,
  SessionTransportOptions,
  BearerTransportOptions,
  PasswordPolicyOptions,
  LockoutOptions,
  ApiKeyEvent,
} from './options';
export type { CurrentUserOptions } from './dependencies';
export type { Sudo, SudoGrant } from './sudo';
export type { NewUser } from './registration';

/** Roles and permissions (`auth.roles`), and the API keys a user makes for scripts. */
export type { Roles, Role, Access } from './roles';
export type { OperatorApiKeys } from './api-keys/operator-api-keys';
export type { ApiKey } from './api-key-store';

/** Mail and text messages of the recovery factor: SMTP, the development outbox, pug templates. */
export { smtpTransport } from './recovery/mail/smtp';
export { outbox } from './recovery/mail/outbox';
export type { SmtpOptions } from './recovery/mail/smtp';
export type { MailMessage, MailTransport, TextMessage, MessageSender } from './recovery/mail/transport';
export type { MailKind, MailTemplate, MailTemplates, MailLocals } from './recovery/mail/templates';
export type { RecoveryOptions, RecoveryLogger } from './recovery/recovery-options';

/** Two-factor authentication: its options, the status GET /mfa answers, and the challenge store interface (for a store of your own). */
export type { MfaOptions } from './mfa/mfa-options';
export type { MfaStatus } from './mfa/two-factor';
export type { ChallengeStore, ChallengeRecord, SignInIntent } from './mfa/challenges';

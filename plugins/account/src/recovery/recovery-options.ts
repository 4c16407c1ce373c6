import type { MailTemplates } from './mail/templates';
import type { MailTransport, MessageSender } from './mail/transport';

/** Where the recovery routes report what went wrong in the background (a mail server down). */
export interface RecoveryLogger {
  warn(message: string, details: Record<string, unknown>): void;
}

/**
 * The recovery factor: e-mail verification, password reset and address change over
 * mailed links (or a phone number and text messages). Setting it mounts the routes.
 */
export interface RecoveryOptions {
  /** `email` (default; needs `mail`) or `phone` (needs the `phone` column and `messages`). */
  factor?: 'email' | 'phone';
  /** Sends the e-mails: `smtpTransport(url)`, `outbox(dir)` in development, or the app's own. */
  mail?: MailTransport;
  /** Sends the text messages of the phone factor: the app's gateway, or `outbox(dir)`. */
  messages?: MessageSender;
  /** The public base URL links are built on, such as `https://app.example.com`. */
  publicUrl: string;
  /** Paths (on `publicUrl`) of the pages the links open, each with `?token=`: `/verify-email`, `/reset-password`, `/confirm-email-change` by default. */
  links?: { verify?: string; reset?: string; change?: string };
  /** pug templates replacing the built-in ones. */
  templates?: MailTemplates;
  /** The name mails sign with (default `crudsmith`). */
  appName?: string;
  /** Token lifetimes in seconds: `verify` 86 400 (24 h), `reset` 3 600 (1 h), `change` 86 400 (24 h). */
  tokenSeconds?: { verify?: number; reset?: number; change?: number };
  /** Most calls of the request routes per client address in a window (default 5 an hour); false for none. */
  requestRateLimit?: { limit: number; periodSeconds: number } | false;
  /** Most deliveries in flight at once (default 100); beyond, a request's message is dropped and logged, its answer unchanged. */
  maxPendingDeliveries?: number;
  /** Default: console. */
  logger?: RecoveryLogger;
}

import { join } from 'node:path';
import { outbox, smtpTransport, type RecoveryOptions } from '@crudsmith/account';

/** The mail settings of the example (examples/app/README.md lists each with its default). */
export interface MailSettings {
  /** SMTP_URL (`smtp://user:pass@host:587`, `smtps://…`): mail goes there. Unset: into the outbox. */
  smtpUrl?: string;
  /** MAIL_OUTBOX_DIR (default DATA_DIR/outbox): one JSON file per message when SMTP_URL is unset. */
  outboxDir: string;
  /** MAIL_FROM (default `crudsmith example <no-reply@localhost>`). */
  from: string;
  /** PUBLIC_URL (default `http://HOST:PORT`): the base of the links in mails. */
  publicUrl: string;
  /** EMAIL_REQUEST_RATE_LIMIT (default 5): verify, reset and change requests per client address an hour. */
  requestRateLimit: number;
  /** EMAIL_VERIFY_TOKEN_SECONDS (86 400), PASSWORD_RESET_TOKEN_SECONDS (3 600), EMAIL_CHANGE_TOKEN_SECONDS (86 400). */
  tokenSeconds: { verify: number; reset: number; change: number };
}

/** Reads the mail settings; `base` gives the defaults that depend on the other settings. */
export function readMailSettings(
  env: NodeJS.ProcessEnv,
  base: { host: string; port: number; dataDir: string },
): MailSettings {
  // A server listening on every interface is reached, from this machine, on the loopback.
  const host = ['0.0.0.0', '::', ''].includes(base.host)
    ? '127.0.0.1'
    : base.host.includes(':')
      ? `[${base.host}]`
      : base.host;
  return {
    smtpUrl: env.SMTP_URL || undefined,
    outboxDir: env.MAIL_OUTBOX_DIR || join(base.dataDir, 'outbox'),
    from: env.MAIL_FROM || 'crudsmith example <no-reply@localhost>',
    publicUrl: env.PUBLIC_URL || `http://${host}:${base.port}`,
    requestRateLimit: whole(env, 'EMAIL_REQUEST_RATE_LIMIT', 5),
    tokenSeconds: {
      verify: whole(env, 'EMAIL_VERIFY_TOKEN_SECONDS', 86_400),
      reset: whole(env, 'PASSWORD_RESET_TOKEN_SECONDS', 3_600),
      change: whole(env, 'EMAIL_CHANGE_TOKEN_SECONDS', 86_400),
    },
  };
}

/** The account plugin's e-mail factor for these settings: SMTP when SMTP_URL is set, otherwise the outbox. */
export function exampleRecovery(settings: MailSettings): RecoveryOptions {
  return {
    mail: settings.smtpUrl ? smtpTransport(settings.smtpUrl, { from: settings.from }) : outbox(settings.outboxDir),
    publicUrl: settings.publicUrl,
    appName: 'crudsmith example',
    tokenSeconds: settings.tokenSeconds,
    requestRateLimit: { limit: settings.requestRateLimit, periodSeconds: 3600 },
  };
}

// A count or a lifetime: a positive whole number, checked before anything starts.
function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] || fallback);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name}=${env[name]} must be a positive whole number`);
  return value;
}

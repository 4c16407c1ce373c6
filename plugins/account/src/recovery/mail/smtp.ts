import { createTransport } from 'nodemailer';
import type { MailTransport } from './transport';

/** Options of `smtpTransport`. */
export interface SmtpOptions {
  /** The sender address (default `no-reply@localhost`). */
  from?: string;
  /** Longest wait for the connection, the greeting and each reply, in ms (default 10 000). */
  timeoutMs?: number;
}

/**
 * Sends through an SMTP server with nodemailer: `url` is `smtp://user:pass@host:587`
 * (STARTTLS when the server offers it) or `smtps://…` (TLS from the start). Timeouts are
 * short, so an unreachable server fails a delivery in seconds rather than minutes.
 */
export function smtpTransport(url: string, options: SmtpOptions = {}): MailTransport {
  const timeout = options.timeoutMs ?? 10_000;
  const transport = createTransport({
    url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 3,
  });
  const from = options.from ?? 'no-reply@localhost';
  return {
    async send(message) {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    async close() {
      transport.close();
    },
  };
}

// Where the recovery tests read what the plugin sent: a real SMTP server on a TCP port
// (smtp-server, reached through the plugin's nodemailer transport) or the outbox directory.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { outbox, smtpTransport, type MailTransport } from '@crudsmith/account';

/** A message as a test reads it. */
export interface Received {
  to: string;
  subject: string;
  text: string;
  /** The HTML body (the outbox keeps it apart; over SMTP it is part of `text`'s source). */
  html?: string;
}

/** A place the plugin delivers to, and the way to read it back. */
export interface Mailbox {
  kind: 'smtp' | 'outbox';
  transport: MailTransport;
  /** Every message so far, oldest first. */
  all(): Promise<Received[]>;
  /** The messages to `address` (any case). */
  to(address: string): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1, answering every message with 250 after `delayMs`. */
export async function smtpMailbox(
  options: { delayMs?: number } = {},
): Promise<Mailbox & { port: number; answered(): number }> {
  const received: Received[] = [];
  // Messages the server has answered 250 for: the sender's delivery is over only then.
  let answered = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = chunks.map((c) => c.toString('utf8')).join('');
        const text = decodeQuotedPrintable(raw);
        for (const rcpt of session.envelope.rcptTo) {
          received.push({ to: rcpt.address, subject: /^Subject: (.*)$/m.exec(raw)?.[1].trim() ?? '', text });
        }
        setTimeout(() => {
          answered += 1;
          callback();
        }, options.delayMs ?? 0);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const transport = smtpTransport(`smtp://127.0.0.1:${port}`, { from: 'crudsmith tests <no-reply@example.com>' });
  return {
    kind: 'smtp',
    port,
    transport,
    answered: () => answered,
    all: async () => [...received],
    to: async (address) => received.filter((m) => m.to.toLowerCase() === address.toLowerCase()),
    async close() {
      await transport.close?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The development outbox in a temporary directory. */
export async function outboxMailbox(): Promise<Mailbox & { dir: string }> {
  const dir = join(await mkdtemp(join(tmpdir(), 'cs-outbox-')), 'outbox');
  const read = async (): Promise<Received[]> => {
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
    return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as Received));
  };
  return {
    kind: 'outbox',
    dir,
    transport: outbox(dir),
    all: read,
    to: async (address) => (await read()).filter((m) => m.to.toLowerCase() === address.toLowerCase()),
    close: () => rm(join(dir, '..'), { recursive: true, force: true }),
  };
}

/** Undoes quoted-printable (soft line breaks and =XX escapes) over a whole message source. */
function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The token of the link in a message (its `token` query parameter). */
export function tokenOf(message: Received | undefined): string {
  const match = message && /[?&]token=([A-Za-z0-9_-]+)/.exec(message.text);
  if (!match) throw new Error(`no link with a token in ${JSON.stringify(message)}`);
  return match[1];
}

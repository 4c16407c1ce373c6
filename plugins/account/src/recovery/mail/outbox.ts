import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomToken } from '@crudsmith/core/auth';
import type { MailMessage, MailTransport, MessageSender, TextMessage } from './transport';

/**
 * The development outbox: each message (an e-mail, or a text message of the phone
 * factor) becomes one JSON file in `dir`, named so that a listing sorts oldest first.
 * Files are written whole (to a temporary name, then renamed), so a reader never sees half
 * a message, and readable by their owner only: they hold live tokens.
 */
export function outbox(dir: string): MailTransport & MessageSender {
  let ready: Promise<unknown> | undefined;
  // Several messages in one millisecond still list in the order they were sent (from one process).
  let sequence = 0;
  return {
    async send(message: MailMessage | TextMessage) {
      // Made once; a failure (a full disk, a permission) is not kept, so the next message tries again.
      ready ??= mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
        ready = undefined;
        throw error;
      });
      await ready;
      const name = `${Date.now().toString().padStart(15, '0')}-${String(sequence++ % 1e6).padStart(6, '0')}-${randomToken(6)}`;
      const temporary = join(dir, `.${name}.tmp`);
      await writeFile(temporary, `${JSON.stringify(message, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, join(dir, `${name}.json`));
    },
  };
}

// E-mail verification, password reset and address change over real mail: one app per
// adapter and engine, its mail read from a real SMTP server or from the outbox.
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { clock, startAccountApp, type AccountEnv } from '../fixture';
import { bodyTests } from './bodies';
import { outboxMailbox, smtpMailbox, type Mailbox, type Received } from './mailboxes';
import { changeTests } from './change';
import { resetTests } from './reset';
import { verifyTests } from './verify';

/** What the recovery test groups share. */
export interface RecoveryEnv {
  env: AccountEnv;
  mailbox: Mailbox;
  /** What the plugin logged about deliveries. */
  logs: { message: string; details: Record<string, unknown> }[];
  /** The messages to `address`, once every delivery started so far has finished. */
  mailsTo(address: string): Promise<Received[]>;
}

/** Most request-route calls per address in the suite's app. */
export const REQUEST_LIMIT = 60;

export function recoverySuite(harness: AdapterHarness, engine: Engine, mail: 'smtp' | 'outbox'): void {
  describe(`account: e-mail verification, reset and change on ${harness.name} / ${engine}, mail by ${mail}`, () => {
    const suite = { logs: [] } as unknown as RecoveryEnv;
    beforeAll(async () => {
      suite.mailbox = mail === 'smtp' ? await smtpMailbox() : await outboxMailbox();
      suite.env = await startAccountApp(harness, engine, {
        recovery: {
          mail: suite.mailbox.transport,
          publicUrl: 'https://app.example.com/',
          appName: 'Test App',
          requestRateLimit: { limit: REQUEST_LIMIT, periodSeconds: 3600 },
          logger: { warn: (message, details) => suite.logs.push({ message, details }) },
        },
        // Concurrent confirms each hash their password before one of them wins.
        hashing: { perClient: 16 },
      });
      suite.mailsTo = async (address) => {
        await suite.env.auth.settled();
        return suite.mailbox.to(address);
      };
    });
    afterAll(async () => {
      await suite.env?.close();
      await suite.mailbox?.close();
    });
    beforeEach(() => {
      clock.skew = 0;
    });

    verifyTests(suite);
    resetTests(suite);
    changeTests(suite);
    bodyTests(suite);
  });
}

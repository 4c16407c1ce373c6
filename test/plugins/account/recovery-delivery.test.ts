// How the recovery routes deliver: the outbox's files, pug templates, a slow or dead SMTP
// server (the answer neither waits nor tells), the per-address limit, and the phone
// factor with its text messages. Each over Koa, Express and Fastify (SQLite); the phone
// factor's look-ups on every engine over Koa too.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type MigrationSet } from '@crudsmith/core';
import { account, outbox, smtpTransport, type MailTransport, type RecoveryOptions } from '@crudsmith/account';
import { expressHarness } from '../../adapters/express-harness';
import { fastifyHarness } from '../../adapters/fastify-harness';
import { koaHarness } from '../../adapters/koa-harness';
import type { AdapterHarness } from '../../adapters/conformance';
import { ENGINES, openDatabase, type Engine } from '../../fixtures/db';
import { closedPort } from '../../fixtures/ports';
import { Client, PASSWORD, SECRET, User, startAccountApp, userMigrations, type AccountEnv } from './fixture';
import { outboxMailbox, smtpMailbox, tokenOf, type Received } from './recovery/mailboxes';

type Logged = { message: string; details: Record<string, unknown> };

/** The `recovery` option of a test app: mail by `mail`, warnings into `logs`. */
const recovery = (mail: MailTransport, logs: Logged[], extra: Partial<RecoveryOptions> = {}) => ({
  recovery: {
    mail,
    publicUrl: 'http://127.0.0.1:8000',
    logger: { warn: (message: string, details: Record<string, unknown>) => logs.push({ message, details }) },
    ...extra,
  },
});

class PhoneUser extends User {
  static override jsonSchema = {
    ...User.jsonSchema,
    properties: { ...User.jsonSchema.properties, phone: { type: ['string', 'null'], maxLength: 16 } },
  };
}

const phoneMigrations: MigrationSet = {
  name: 'test-phone',
  migrations: {
    '0001_users_phone': {
      async up(knex) {
        await knex.schema.alterTable('users', (t) => t.string('phone', 16).nullable().unique());
      },
      async down(knex) {
        await knex.schema.alterTable('users', (t) => t.dropColumn('phone'));
      },
    },
  },
};

function deliveryTests(harness: AdapterHarness): void {
  describe(`account: recovery deliveries on ${harness.name}`, () => {
    describe('the outbox and the templates', () => {
      let env: AccountEnv;
      let box: Awaited<ReturnType<typeof outboxMailbox>>;
      beforeAll(async () => {
        box = await outboxMailbox();
        env = await startAccountApp(harness, 'sqlite', {
          ...recovery(box.transport, [], {
            templates: {
              mail: {
                reset: { subject: '| Password help for !{username}', html: 'p\n  a(href=link) Reset it, #{username}' },
              },
            },
            tokenSeconds: { reset: 600 },
            links: { reset: '/account/new-password' },
          }),
        });
      });
      afterAll(async () => {
        await env?.close();
        await box?.close();
      });

      it('writes one JSON file per message with to, subject, text and html, readable by its owner only', async () => {
        await env.user('Otto');
        await env.client().request('POST', '/auth/password/reset-request', { json: { email: 'otto@example.com' } });
        await env.auth.settled();
        const mails = await box.all();
        expect(mails).toHaveLength(1);
        expect(Object.keys(mails[0]).sort()).toEqual(['html', 'subject', 'text', 'to']);
        expect(mails[0].to).toBe('otto@example.com');
        expect(mails[0].subject).toBe('Password help for Otto');
        expect(mails[0].text).toContain('http://127.0.0.1:8000/account/new-password?token=');
        expect(mails[0].text).toContain('10 minutes');
        expect(mails[0].html).toMatch(
          /^<p><a href="http:\/\/127\.0\.0\.1:8000\/account\/new-password\?token=[\w-]{43}">Reset it, Otto<\/a><\/p>$/,
        );
        const [file] = await readdir(box.dir);
        expect((await stat(join(box.dir, file))).mode & 0o777).toBe(0o600);
        const token = tokenOf(mails[0]);
        expect(
          (
            await env.client().request('POST', '/auth/password/reset-confirm', {
              json: { token, new_password: 'the outbox delivered' },
            })
          ).status,
        ).toBe(200);
      });

      it('refuses a template that does not compile, at startup', () => {
        expect(() =>
          account({
            knex: env.db.knex,
            userModel: User,
            secretKey: SECRET,
            ...recovery(box.transport, [], { templates: { mail: { verify: { html: 'p(' } } } }),
          }),
        ).toThrow(/template verify\.html/);
      });
    });

    describe('a slow or failing mail server', () => {
      let env: AccountEnv;
      let slow: Awaited<ReturnType<typeof smtpMailbox>>;
      const logs: Logged[] = [];
      beforeAll(async () => {
        slow = await smtpMailbox({ delayMs: 3000 });
        env = await startAccountApp(harness, 'sqlite', recovery(slow.transport, logs));
      });
      afterAll(async () => {
        await env?.close();
        await slow?.close();
      });

      it('answers before a slow server has taken the mail (the server answers the message after the route does)', async () => {
        await env.user('sloane');
        const answeredBefore = slow.answered();
        const res = await env
          .client()
          .request('POST', '/auth/password/reset-request', { json: { email: 'sloane@example.com' } });
        expect(res.status).toBe(202);
        expect(slow.answered()).toBe(answeredBefore);
        await env.auth.settled();
        expect(slow.answered()).toBe(answeredBefore + 1);
        expect(await slow.to('sloane@example.com')).toHaveLength(1);
      });

      it('keeps at most maxPendingDeliveries in flight, dropping (and logging) the rest with the same answer', async () => {
        const dropped: Logged[] = [];
        const bounded = await startAccountApp(
          harness,
          'sqlite',
          recovery(slow.transport, dropped, { maxPendingDeliveries: 1 }),
        );
        try {
          await bounded.user('bea');
          const answers = [];
          for (let i = 0; i < 3; i++)
            answers.push(
              await bounded
                .client()
                .request('POST', '/auth/password/reset-request', { json: { email: 'bea@example.com' } }),
            );
          expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
          expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
          await bounded.auth.settled();
          expect(await slow.to('bea@example.com')).toHaveLength(1);
          expect(dropped.map((d) => d.message)).toEqual([
            'account: a recovery message was dropped: too many deliveries in flight',
            'account: a recovery message was dropped: too many deliveries in flight',
          ]);
        } finally {
          await bounded.close();
        }
      });

      it('answers an unreachable server exactly as an unknown account, and logs the failure without token or address', async () => {
        const dead = smtpTransport(`smtp://127.0.0.1:${await closedPort()}`, { timeoutMs: 2000 });
        const failing: Logged[] = [];
        const other = await startAccountApp(harness, 'sqlite', recovery(dead, failing));
        try {
          await other.user('dora');
          const c = other.client();
          const known = await c.request('POST', '/auth/password/reset-request', {
            json: { email: 'dora@example.com' },
          });
          const unknown = await c.request('POST', '/auth/password/reset-request', {
            json: { email: 'nobody@example.com' },
          });
          expect({ status: known.status, body: known.body }).toEqual({ status: unknown.status, body: unknown.body });
          await other.auth.settled();
          expect(failing).toHaveLength(1);
          expect(failing[0].details).toMatchObject({ purpose: 'reset' });
          expect(JSON.stringify(failing)).not.toContain('dora@example.com');
          const token = await other.db.knex('account_tokens').first('token_hash');
          expect(JSON.stringify(failing)).not.toContain(token.token_hash);
        } finally {
          await other.close();
        }
      });

      it('limits the request routes per client address (429 with Retry-After)', async () => {
        const box = await outboxMailbox();
        const limited = await startAccountApp(
          harness,
          'sqlite',
          recovery(box.transport, [], { requestRateLimit: { limit: 3, periodSeconds: 3600 } }),
        );
        try {
          const c = limited.client();
          expect(
            (await c.request('POST', '/auth/password/reset-request', { json: { email: 'a@example.com' } })).status,
          ).toBe(202);
          expect(
            (await c.request('POST', '/auth/email/verify-request', { json: { email: 'b@example.com' } })).status,
          ).toBe(202);
          expect(
            (await c.request('POST', '/auth/password/reset-request', { json: { email: 'c@example.com' } })).status,
          ).toBe(202);
          const refused = await c.request('POST', '/auth/password/reset-request', { json: { email: 'd@example.com' } });
          expect(refused).toMatchObject({
            status: 429,
            body: { detail: 'Too many requests from this address; try again later' },
          });
          expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        } finally {
          await limited.close();
          await box.close();
        }
      });
    });
  });
}

// The phone factor looks accounts up by their phone column: every engine on Koa, SQLite on the others.
function phoneFactorTests(harness: AdapterHarness, engine: Engine): void {
  describe(`account: the phone factor on ${harness.name} / ${engine}`, () => {
    const texts: { dir?: string; read?: () => Promise<Received[]> } = {};
    let close: () => Promise<void>;
    let client: () => Client;
    let knex: Awaited<ReturnType<typeof openDatabase>>['knex'];
    let settled: () => Promise<void>;
    beforeAll(async () => {
      const db = await openDatabase(engine);
      knex = db.knex;
      const box = await outboxMailbox();
      texts.read = box.all;
      const auth = account({
        knex: db.knex,
        userModel: PhoneUser,
        secretKey: SECRET,
        path: '/auth',
        password: { bcryptRounds: 4 },
        recovery: { factor: 'phone', messages: outbox(box.dir), publicUrl: 'http://127.0.0.1:8000' },
      });
      const app = bootstrap({
        plugins: [auth],
        principal: auth.principal,
        migrations: [userMigrations, phoneMigrations],
      });
      await app.start(db.knex);
      const server = await harness.mount(app.routes, { sessions: auth.sessionManager ? [auth.sessionManager] : [] });
      const user = await auth.createUser({ username: 'phil', email: 'phil@example.com', password: PASSWORD });
      await db.knex('users').where('id', user.id).update({ phone: '+4915112345678' });
      client = () => new Client(server.url);
      settled = () => auth.settled();
      close = async () => {
        await server.close();
        await app.close();
        await db.destroy();
        await box.close();
      };
    });
    afterAll(async () => close?.());

    it('verifies and resets by text message, with the same uniform answers; the body takes phone', async () => {
      const c = client();
      const known = await c.request('POST', '/auth/email/verify-request', { json: { phone: '+49 151 1234-5678' } });
      const unknown = await c.request('POST', '/auth/email/verify-request', { json: { phone: '+4915100000000' } });
      expect(known.status).toBe(202);
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
      expect(
        (await c.request('POST', '/auth/email/verify-request', { json: { email: 'phil@example.com' } })).status,
      ).toBe(422);
      expect((await c.request('POST', '/auth/email/verify-request', { json: { phone: '0151 12345678' } })).status).toBe(
        422,
      );
      await settled();
      const [text] = await texts.read!();
      expect(Object.keys(text).sort()).toEqual(['text', 'to']);
      expect(text.to).toBe('+4915112345678');
      expect((await c.request('POST', '/auth/email/verify-confirm', { json: { token: tokenOf(text) } })).status).toBe(
        200,
      );
      expect(Boolean((await knex('users').where('username', 'phil').first()).is_verified)).toBe(true);

      await c.request('POST', '/auth/password/reset-request', { json: { phone: '+4915112345678' } });
      await settled();
      const reset = (await texts.read!()).at(-1);
      expect(reset?.text).toContain('/reset-password?token=');
      expect(
        (
          await c.request('POST', '/auth/password/reset-confirm', {
            json: { token: tokenOf(reset), new_password: 'reset by text message' },
          })
        ).status,
      ).toBe(200);
      expect((await client().login('phil', 'reset by text message')).status).toBe(200);
      expect(await texts.read!()).toHaveLength(2);
    });
  });
}

for (const harness of [koaHarness, expressHarness, fastifyHarness]) deliveryTests(harness);
for (const engine of ENGINES) phoneFactorTests(koaHarness, engine);
phoneFactorTests(expressHarness, 'sqlite');
phoneFactorTests(fastifyHarness, 'sqlite');

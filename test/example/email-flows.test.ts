// The example's e-mail factor: verification shows in UserReadV2's is_verified, and the
// reset flow a newcomer walks from the README, with mail in the outbox (MAIL_OUTBOX_DIR)
// or through a real SMTP server (SMTP_URL).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMailSettings } from '../../examples/app/src/mail';
import { readSettings } from '../../examples/app/src/config';
import { smtpMailbox, tokenOf, type Received } from '../plugins/account/recovery/mailboxes';
import { ADAPTER_ENGINES, PASSWORD, send, startExample, type ExampleServer } from './example-server';

const base = { host: '127.0.0.1', port: 8000, dataDir: '/srv/data' };

describe('example mail settings', () => {
  it('default to the outbox under DATA_DIR, links on HOST:PORT, 5 requests an hour, 24 h / 1 h / 24 h tokens', () => {
    expect(readMailSettings({}, base)).toEqual({
      outboxDir: '/srv/data/outbox',
      smtpUrl: undefined,
      from: 'crudsmith example <no-reply@localhost>',
      publicUrl: 'http://127.0.0.1:8000',
      requestRateLimit: 5,
      tokenSeconds: { verify: 86_400, reset: 3_600, change: 86_400 },
    });
    expect(readSettings({ HOST: '0.0.0.0', PORT: '9000', DATA_DIR: '/tmp/x' }).mail).toMatchObject({
      publicUrl: 'http://127.0.0.1:9000',
      outboxDir: '/tmp/x/outbox',
    });
    expect(
      readMailSettings(
        {
          PUBLIC_URL: 'https://api.example.com',
          MAIL_OUTBOX_DIR: '/var/mail',
          SMTP_URL: 'smtp://mail:25',
          PASSWORD_RESET_TOKEN_SECONDS: '600',
        },
        base,
      ),
    ).toMatchObject({
      publicUrl: 'https://api.example.com',
      outboxDir: '/var/mail',
      smtpUrl: 'smtp://mail:25',
      tokenSeconds: { reset: 600 },
    });
    expect(() => readMailSettings({ EMAIL_REQUEST_RATE_LIMIT: 'lots' }, base)).toThrow(/EMAIL_REQUEST_RATE_LIMIT/);
  });
});

describe.each(ADAPTER_ENGINES)('example app e-mail flows on %s with %s', (adapter, engine) => {
  let ex: ExampleServer;
  let dir: string;
  const outbox = async (): Promise<Received[]> => {
    await ex.app.auth.settled();
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
    return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as Received));
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cs-example-outbox-'));
    ex = await startExample(engine, {
      adapter,
      users: ['una'],
      build: { mail: readMailSettings({ MAIL_OUTBOX_DIR: dir }, base) },
    });
  });
  afterAll(async () => {
    await ex?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('verify-confirm sets is_verified, which UserReadV2 shows', async () => {
    const id = ex.ids.una;
    expect((await ex.client().get(`/api/v2/users/${id}`)).body.is_verified).toBe(false);
    expect(
      (await ex.client().request('POST', '/auth/email/verify-request', { json: { email: 'una@example.com' } })).status,
    ).toBe(202);
    const [mail] = (await outbox()).filter((m) => m.to === 'una@example.com');
    expect(mail.text).toContain('http://127.0.0.1:8000/verify-email?token=');
    expect(
      (await ex.client().request('POST', '/auth/email/verify-confirm', { json: { token: tokenOf(mail) } })).status,
    ).toBe(200);
    expect((await ex.client().get(`/api/v2/users/${id}`)).body.is_verified).toBe(true);
    // The address changed by PATCH: no longer verified (the same case-folded address keeps the flag).
    const una = await ex.signedIn('una');
    expect((await send(una, 'PATCH', `/api/v1/users/${id}`, { email: 'UNA@example.com' })).status).toBe(200);
    expect((await ex.client().get(`/api/v2/users/${id}`)).body.is_verified).toBe(true);
    expect((await send(una, 'PATCH', `/api/v1/users/${id}`, { email: 'una.patched@example.com' })).status).toBe(200);
    expect((await ex.client().get(`/api/v2/users/${id}`)).body.is_verified).toBe(false);
    expect((await send(una, 'PATCH', `/api/v1/users/${id}`, { email: 'una@example.com' })).status).toBe(200);
  });

  it('walks the README reset flow: request, token from the outbox, confirm, sign in with the new password', async () => {
    const before = await ex.signedIn('una');
    expect(
      (await ex.client().request('POST', '/auth/password/reset-request', { json: { email: 'una@example.com' } }))
        .status,
    ).toBe(202);
    const mail = (await outbox()).filter((m) => m.to === 'una@example.com').at(-1);
    expect(mail?.subject).toBe('Reset your crudsmith example password');
    const res = await ex.client().request('POST', '/auth/password/reset-confirm', {
      json: { token: tokenOf(mail), new_password: 'my reset passphrase' },
    });
    expect(res.status).toBe(200);
    expect((await before.get('/auth/me')).status).toBe(401);
    expect((await ex.client().login('una', PASSWORD)).status).toBe(401);
    const after = await ex.signedIn('una', 'my reset passphrase');
    expect(
      (
        await send(after, 'POST', '/auth/email/change-request', {
          new_email: 'una.new@example.com',
          password: 'my reset passphrase',
        })
      ).status,
    ).toBe(202);
    expect((await outbox()).some((m) => m.to === 'una.new@example.com')).toBe(true);
  });
});

describe('example app mail through SMTP_URL', () => {
  let ex: ExampleServer;
  let smtp: Awaited<ReturnType<typeof smtpMailbox>>;
  beforeAll(async () => {
    smtp = await smtpMailbox();
    ex = await startExample('sqlite', {
      users: ['sam'],
      build: { mail: readMailSettings({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}` }, base) },
    });
  });
  afterAll(async () => {
    await ex?.close();
    await smtp?.close();
  });

  it('sends the reset mail to the SMTP server', async () => {
    expect(
      (await ex.client().request('POST', '/auth/password/reset-request', { json: { email: 'sam@example.com' } }))
        .status,
    ).toBe(202);
    await ex.app.auth.settled();
    const [mail] = await smtp.to('sam@example.com');
    expect(mail.subject).toBe('Reset your crudsmith example password');
    expect(
      (
        await ex.client().request('POST', '/auth/password/reset-confirm', {
          json: { token: tokenOf(mail), new_password: 'reset over smtp' },
        })
      ).status,
    ).toBe(200);
  });
});

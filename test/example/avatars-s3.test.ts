import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '@crudsmith/core';
import type { Client } from '../plugins/account/fixture';
import { startS3Server, type TestS3Server } from '../fixtures/s3-server';
import { openStorage, readStorageSettings } from '../../examples/app/src/storage';
import { ADAPTER_ENGINES, startExample, type ExampleServer } from './example-server';

// A real 1×1 PNG; bytes after IEND do not change what it is, so it can be padded to any size.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d9c0a40000000049454e44ae426082',
  'hex',
);
const padded = (size: number) => Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]);
const STORED = /^\/static\/avatars\/[0-9a-f]{32}\.png$/;

// STORAGE_URL=s3://bucket/prefix: avatars go to the bucket (nothing under DATA_DIR), are
// served through the app's own route with the same headers, and a replaced or failed
// upload leaves no object behind.
// One S3 server for the file; each adapter and engine writes under a prefix of its own.
let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
});

describe.each(ADAPTER_ENGINES)('example app avatars in an S3 bucket on %s with %s', (adapter, engine) => {
  const prefix = `app-${adapter}-${engine}`;
  /** The bucket's keys under this run's prefix. */
  const keys = () => s3.keys().filter((key) => key.startsWith(`${prefix}/`));
  let ex: ExampleServer;
  let dataDir: string;
  let ann: Client;
  /** Runs once after the next object is written, before the row is updated. */
  let afterPut: (() => Promise<void>) | undefined;

  const upload = async (bytes: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'me.png');
    const headers = {
      cookie: [...ann.jar].map(([k, v]) => `${k}=${v}`).join('; '),
      'x-csrf-token': ann.jar.get('cs_csrf') ?? '',
    };
    const res = await fetch(`${ex.base}/api/v1/users/${ex.ids.ann}/avatar`, { method: 'POST', body: form, headers });
    return { status: res.status, body: (await res.json()) as any };
  };
  const objectOf = (url: string) => `${prefix}/avatars/${url.split('/').pop()}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cs-avatars-s3-'));
    // Built from the settings the example reads, as main.ts does.
    const settings = readStorageSettings({
      STORAGE_URL: `s3://${s3.bucket}/${prefix}`,
      STORAGE_S3_ENDPOINT: s3.endpoint,
      STORAGE_S3_REGION: s3.region,
      STORAGE_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      STORAGE_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    });
    const bucket = openStorage(settings, dataDir);
    const storage: Storage = {
      ...bucket,
      async put(key, data, options) {
        await bucket.put(key, data, options);
        const hook = afterPut;
        afterPut = undefined;
        await hook?.();
      },
    };
    ex = await startExample(engine, {
      adapter,
      users: ['ann'],
      build: { dataDir, storage, rateLimit: { defaultLimit: 100_000 } },
    });
    ann = await ex.signedIn('ann');
  });
  afterAll(async () => {
    await ex?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores the upload in the bucket under the prefix, nothing under DATA_DIR, and streams it back through /static/avatars with its type and caching', async () => {
    const bytes = padded(300_000);
    const res = await upload(bytes);
    expect(res.status).toBe(200);
    expect(res.body.profile_image_url).toMatch(STORED);
    expect(keys()).toEqual([objectOf(res.body.profile_image_url)]);
    expect(readdirSync(dataDir).filter((name) => name === 'avatars')).toEqual([]);
    const served = await fetch(`${ex.base}${res.body.profile_image_url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(`${ex.base}/static/avatars/${'b'.repeat(32)}.png`)).status).toBe(404);
  });

  it('a new upload replaces the object: the old one is deleted from the bucket and its URL answers 404', async () => {
    const before = (await ex.db.knex('users').where({ id: ex.ids.ann }).first()).profile_image_url as string;
    const res = await upload(padded(1000));
    expect(res.status).toBe(200);
    expect(res.body.profile_image_url).not.toBe(before);
    expect(keys()).toEqual([objectOf(res.body.profile_image_url)]);
    expect((await fetch(`${ex.base}${before}`)).status).toBe(404);
  });

  it('leaves no object in the bucket when the row update fails after the object was written', async () => {
    const before = (await ex.db.knex('users').where({ id: ex.ids.ann }).first()).profile_image_url as string;
    const kept = keys();
    // The user is deleted between the object's write and the row's update: the update finds no row.
    afterPut = async () => {
      await ex.db.knex('users').where({ id: ex.ids.ann }).update({ is_deleted: true });
    };
    const res = await upload(padded(2000));
    await ex.db.knex('users').where({ id: ex.ids.ann }).update({ is_deleted: false });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(keys()).toEqual(kept);
    expect((await ex.db.knex('users').where({ id: ex.ids.ann }).first()).profile_image_url).toBe(before);
    expect((await fetch(`${ex.base}${before}`)).status).toBe(200);
  });
});

describe('example app STORAGE_URL settings', () => {
  it('is unset by default (uploads under DATA_DIR), and reads bucket, prefix, endpoint, region, keys and path style', () => {
    expect(readStorageSettings({})).toBeUndefined();
    expect(readStorageSettings({ STORAGE_URL: 's3://my-bucket/up/loads/' })).toEqual({
      bucket: 'my-bucket',
      prefix: 'up/loads/',
      endpoint: undefined,
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
    });
    expect(
      readStorageSettings({
        STORAGE_URL: 's3://b-1',
        STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000',
        STORAGE_S3_REGION: 'eu-west-3',
      }),
    ).toMatchObject({ prefix: '', endpoint: 'http://127.0.0.1:9000', region: 'eu-west-3', forcePathStyle: true });
    expect(
      readStorageSettings({
        STORAGE_URL: 's3://b-1',
        STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000',
        STORAGE_S3_FORCE_PATH_STYLE: 'false',
      })!.forcePathStyle,
    ).toBe(false);
  });

  it('refuses at start-up a URL that is not s3://bucket, a bad endpoint, and half a key pair', () => {
    for (const url of ['http://bucket', 's3://', 's3://UPPER', 'bucket', 's3://a'])
      expect(() => readStorageSettings({ STORAGE_URL: url }), url).toThrow(/STORAGE_URL/);
    expect(() => readStorageSettings({ STORAGE_URL: 's3://b-1', STORAGE_S3_ENDPOINT: 'ftp://x' })).toThrow(
      /STORAGE_S3_ENDPOINT/,
    );
    expect(() => readStorageSettings({ STORAGE_URL: 's3://b-1', STORAGE_S3_ACCESS_KEY_ID: 'k' })).toThrow(
      /STORAGE_S3_SECRET_ACCESS_KEY/,
    );
  });
});

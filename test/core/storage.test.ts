import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localStorage, type Storage, type StoredObject } from '@crudsmith/core';
import { s3Storage, StorageUnavailableError } from '@crudsmith/core/s3';
import { closedPort } from '../fixtures/ports';
import { startS3Server, type TestS3Server } from '../fixtures/s3-server';

const bytesOf = async (object: StoredObject | null): Promise<Buffer | null> => {
  if (!object) return null;
  if (object.body instanceof Readable) {
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  return Buffer.from(object.body);
};

interface StoreUnderTest {
  storage: Storage;
  /** The keys the store holds, seen from outside it. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

const stores: [string, () => Promise<StoreUnderTest>][] = [
  [
    'a local folder',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cs-storage-'));
      const list = (sub: string): string[] =>
        readdirSync(join(dir, sub), { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? list(join(sub, e.name)) : [join(sub, e.name)],
        );
      return {
        storage: localStorage(dir),
        keys: async () => list('').sort(),
        close: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    'an S3 bucket',
    async () => {
      const s3 = await startS3Server();
      const storage = s3Storage({
        bucket: s3.bucket,
        prefix: 'app/',
        config: { endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials },
      });
      const keys = async () => s3.keys().map((key) => key.replace(/^app\//, ''));
      return { storage, keys, close: () => s3.stop() };
    },
  ],
];

// The contract every store keeps: what is put is read back byte for byte, a missing key is
// null, a delete is idempotent, and no key ever leaves the store's folder or prefix.
describe.each(stores)('storage in %s', (_, open) => {
  let store: StoreUnderTest;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(() => store?.close());

  it('reads back what was put, byte for byte, under a nested key', async () => {
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    await store.storage.put('avatars/one.png', data, { contentType: 'image/png' });
    const read = await store.storage.get('avatars/one.png');
    expect((await bytesOf(read))!.equals(data)).toBe(true);
    expect(read!.size).toBe(data.length);
    expect(await store.keys()).toContain('avatars/one.png');
  });

  it('answers null for a key it does not hold', async () => {
    expect(await store.storage.get('avatars/none.png')).toBeNull();
    expect(await store.storage.get('nowhere/at/all.png')).toBeNull();
  });

  it('deletes an object, and deleting a missing one is no error', async () => {
    await store.storage.put('avatars/two.png', Buffer.from('two'), { contentType: 'image/png' });
    await store.storage.delete('avatars/two.png');
    expect(await store.storage.get('avatars/two.png')).toBeNull();
    expect(await store.keys()).not.toContain('avatars/two.png');
    await expect(store.storage.delete('avatars/two.png')).resolves.toBeUndefined();
  });

  it('refuses keys that could leave its folder or prefix, before touching anything', async () => {
    const before = await store.keys();
    for (const key of [
      '../escape.png',
      'avatars/../../escape.png',
      '/etc/passwd',
      'a//b',
      '',
      '.hidden',
      'a/./b',
      'x'.repeat(513),
      'sp ace.png',
    ]) {
      await expect(store.storage.put(key, Buffer.from('x'), { contentType: 'text/plain' }), key).rejects.toThrow(
        TypeError,
      );
      await expect(store.storage.get(key), key).rejects.toThrow(TypeError);
      await expect(store.storage.delete(key), key).rejects.toThrow(TypeError);
    }
    expect(await store.keys()).toEqual(before);
  });
});

describe('storage in an S3 bucket: content types and outages', () => {
  let s3: TestS3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.stop());

  it('keeps the content type it was given', async () => {
    const storage = s3Storage({
      bucket: s3.bucket,
      config: { endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials },
    });
    await storage.put('kinds/pic.webp', Buffer.from('RIFF'), { contentType: 'image/webp' });
    expect((await storage.get('kinds/pic.webp'))!.contentType).toBe('image/webp');
  });

  it('answers 503 (StorageUnavailableError) when nothing listens or the bucket is missing, never a generic error', async () => {
    const down = s3Storage({
      bucket: s3.bucket,
      config: {
        endpoint: `http://127.0.0.1:${await closedPort()}`,
        region: s3.region,
        credentials: s3.credentials,
        maxAttempts: 1,
      },
    });
    const missing = s3Storage({
      bucket: 'no-such-bucket',
      config: { endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials, maxAttempts: 1 },
    });
    for (const storage of [down, missing]) {
      const failed = await storage
        .put('a.png', Buffer.from('x'), { contentType: 'image/png' })
        .catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(StorageUnavailableError);
      expect((failed as StorageUnavailableError).status).toBe(503);
    }
    await expect(down.get('a.png')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

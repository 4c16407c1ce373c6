// Admin file fields kept in core's Storage: an S3-compatible server (the S3 fixture) behind
// `s3Storage`, as several machines share it. One server, Koa and SQLite: the storage path is
// the same on every adapter and engine (the conformance suite covers the form itself).
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '@crudsmith/core';
import { s3Storage } from '@crudsmith/core/s3';
import { admin } from '@crudsmith/admin';
import { koaHarness } from '../../adapters/koa-harness';
import { openDatabase } from '../../fixtures/db';
import { startS3Server, type TestS3Server } from '../../fixtures/s3-server';
import { Gadget, seed, startAdminApp, type AdminEnv, type Client } from './fixture';

const KEY = /^admin\/gadgets\/manual\/[0-9a-f]{32}\.txt$/;

describe('admin file fields in an S3 bucket', () => {
  let s3: TestS3Server;
  let env: AdminEnv;
  let client: Client;
  let uid: string;

  const manualOf = async () => (await env.db.knex('gadgets').where({ uid }).first()).manual as string | null;
  const upload = (content: string, label = 'with manual') => {
    const data = new FormData();
    data.append('csrf_token', client.csrf);
    data.append('label', label);
    data.append('manual', new Blob([content], { type: 'text/plain' }), 'Manual.TXT');
    return client.request('POST', `/admin/gadgets/form_update/${uid}`, { multipart: data });
  };

  beforeAll(async () => {
    s3 = await startS3Server();
    const storage = s3Storage({ bucket: s3.bucket, client: s3.client });
    env = await startAdminApp(koaHarness, 'sqlite', {
      models: {
        gadgets: {
          model: Gadget,
          allowedActions: ['view', 'update'],
          createSchema: ['uid', 'label'],
          updateSchema: ['label', 'manual'],
          files: { manual: { maxBytes: 1000, types: ['text/plain'], storage } },
          // A write that fails after the file was stored.
          beforeWrite: (values) => {
            if (values.label === 'refused') throw ValidationError.of(['body', 'label'], 'refused here');
            return values;
          },
        },
      },
    });
    [uid] = await seed(env.db, 0);
    client = await env.signedIn();
    await client.get(`/admin/gadgets/update/${uid}`);
  });
  afterAll(async () => {
    await env?.close();
    await s3?.stop();
  });

  it('writes the upload to the bucket under a generated key, which the column stores; a new upload replaces the object', async () => {
    expect((await upload('first manual')).status).toBe(303);
    const first = await manualOf();
    expect(first).toMatch(KEY);
    expect(s3.keys()).toEqual([first]);
    const stored = await s3Storage({ bucket: s3.bucket, client: s3.client }).get(first!);
    expect(stored?.contentType).toBe('text/plain');
    expect(Buffer.concat(await (stored!.body as Readable).toArray()).toString()).toBe('first manual');
    expect((await upload('second manual')).status).toBe(303);
    const second = await manualOf();
    expect(second).toMatch(KEY);
    expect(second).not.toBe(first);
    expect(s3.keys()).toEqual([second]);
  });

  it('leaves no object behind when the row write fails or the file is refused', async () => {
    const before = s3.keys();
    const kept = await manualOf();
    expect((await upload('never referenced', 'refused')).status).toBe(422);
    expect((await upload('x'.repeat(1001))).status).toBe(413);
    expect(s3.keys()).toEqual(before);
    expect(await manualOf()).toBe(kept);
  });

  it('refuses a file field with both a storage and a store, or neither, at start-up', async () => {
    const db = await openDatabase('sqlite');
    const storage = s3Storage({ bucket: s3.bucket, client: s3.client });
    const gadgets = (manual: object) => ({
      knex: db.knex,
      secretKey: 'admin-test-secret-key-that-is-long-enough-0123',
      models: {
        gadgets: {
          model: Gadget,
          allowedActions: ['view' as const],
          createSchema: ['label'],
          updateSchema: ['label'],
          files: { manual },
        },
      },
    });
    try {
      expect(() => admin(gadgets({ storage, store: async () => 'x' }))).toThrow(/needs a storage or a store/);
      expect(() => admin(gadgets({ maxBytes: 10 }))).toThrow(/needs a storage or a store/);
    } finally {
      await db.destroy();
    }
  });
});

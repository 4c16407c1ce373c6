import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { ServiceUnavailableError } from '../errors/http-error';
import { checkStorageKey, type Storage } from './storage';

/** Where the S3 store writes: a bucket (and key prefix) of an S3-compatible service. */
export interface S3StorageOptions {
  bucket: string;
  /** Put before every key (`uploads/`), so one bucket can serve several apps. */
  prefix?: string;
  /** A client of the app's own; otherwise one is made from `config`. */
  client?: S3Client;
  /**
   * Settings of the client made here: `region`, `credentials`, and for a service other than
   * AWS its `endpoint` (path-style addressing is then the default, as most such services need).
   */
  config?: S3ClientConfig;
}

/** The S3 service could not be reached or refused the request: the upload or read is worth retrying. */
export class StorageUnavailableError extends ServiceUnavailableError {
  constructor(cause: unknown) {
    super('File storage is unavailable; try again shortly', { cause });
  }
}

/** Objects in an S3 bucket (AWS or any S3-compatible service): a store every machine of an app shares. */
export function s3Storage(options: S3StorageOptions): Storage {
  // Required here, not imported: the entry loads (and its declarations compile) without the SDK until a store is made.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
  const { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client: Client } = sdk;
  const { bucket, prefix = '' } = options;
  const config = options.config ?? {};
  const client =
    options.client ??
    new Client({
      forcePathStyle: config.endpoint !== undefined,
      // Checksums only where S3 demands them: many S3-compatible servers reject the newer trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...config,
    });
  const keyOf = (key: string) => `${prefix}${checkStorageKey(key)}`;
  const unavailable = (err: unknown): never => {
    throw new StorageUnavailableError(err);
  };
  return {
    async put(key, data, { contentType }) {
      await client
        .send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: keyOf(key),
            Body: data,
            ContentType: contentType,
            ContentLength: data.length,
          }),
        )
        .catch(unavailable);
    },
    async get(key) {
      const found = await client
        .send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(key) }))
        .catch((err: { name?: string; $metadata?: { httpStatusCode?: number } }) => {
          if (err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404) return null;
          return unavailable(err);
        });
      if (!found?.Body) return null;
      return { body: found.Body as Readable, contentType: found.ContentType, size: found.ContentLength };
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(key) })).catch(unavailable);
    },
  };
}

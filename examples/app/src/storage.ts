import { localStorage, type Storage } from '@crudsmith/core';
import { s3Storage } from '@crudsmith/core/s3';

/** Uploads in an S3 bucket: STORAGE_URL=s3://bucket[/prefix] and the STORAGE_S3_* settings. */
export interface S3Settings {
  bucket: string;
  /** Key prefix from the URL's path (`s3://bucket/uploads` → `uploads/`); none by default. */
  prefix: string;
  /** STORAGE_S3_ENDPOINT: an S3-compatible service (MinIO, R2, …); AWS when unset. */
  endpoint?: string;
  /** STORAGE_S3_REGION (default us-east-1). */
  region: string;
  /** STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY (both, or neither for the SDK's own chain: env, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** STORAGE_S3_FORCE_PATH_STYLE (default true with a custom endpoint, false on AWS). */
  forcePathStyle: boolean;
}

// A bucket name as S3 allows it: 3–63 lower-case letters, digits, dots and dashes.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The S3 settings when STORAGE_URL names a bucket; undefined (uploads under DATA_DIR) when it is unset. */
export function readStorageSettings(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const raw = env.STORAGE_URL;
  if (!raw) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== 's3:' || !BUCKET.test(url.hostname))
    throw new Error(`STORAGE_URL must be s3://bucket or s3://bucket/prefix, got ${raw}`);
  const accessKeyId = env.STORAGE_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.STORAGE_S3_SECRET_ACCESS_KEY;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new Error('Set both STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY, or neither');
  const endpoint = env.STORAGE_S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint))
    throw new Error(`STORAGE_S3_ENDPOINT must be an http(s) URL, got ${endpoint}`);
  const path = url.pathname.replace(/^\/+|\/+$/g, '');
  return {
    bucket: url.hostname,
    prefix: path ? `${path}/` : '',
    endpoint,
    region: env.STORAGE_S3_REGION || 'us-east-1',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: env.STORAGE_S3_FORCE_PATH_STYLE
      ? env.STORAGE_S3_FORCE_PATH_STYLE === 'true'
      : endpoint !== undefined,
  };
}

/** The store uploads go to: the S3 bucket of `s3`, else the folder `dataDir`. */
export function openStorage(s3: S3Settings | undefined, dataDir: string): Storage {
  if (!s3) return localStorage(dataDir);
  const { bucket, prefix, endpoint, region, credentials, forcePathStyle } = s3;
  return s3Storage({ bucket, prefix, config: { endpoint, region, credentials, forcePathStyle } });
}

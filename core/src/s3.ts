// @crudsmith/core/s3: uploaded files in an S3 bucket. A subpath of its own so that apps
// without S3 never load the AWS SDK (`@aws-sdk/client-s3`, an optional peer dependency).

/** The S3 store and its error. */
export { s3Storage, StorageUnavailableError } from './storage/s3-storage';
export type { S3StorageOptions } from './storage/s3-storage';

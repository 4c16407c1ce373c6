import type { ErrorCode } from './codes';
import { BadRequestError, PayloadTooLargeError } from './http-error';

/** 413: a bulk body holds more items than the router takes in one request. */
export class TooManyItemsError extends PayloadTooLargeError {
  override readonly code: ErrorCode = 'too_many_items';

  constructor(max: number, options?: { cause?: unknown }) {
    super(`A bulk request takes at most ${max} items`, options);
  }
}

/** 400: a bulk update or delete would touch more rows than allowed; nothing was changed. */
export class TooManyAffectedError extends BadRequestError {
  override readonly code: ErrorCode = 'too_many_affected';

  constructor(count: number, max: number, options?: { cause?: unknown }) {
    super(`The request would change ${count} rows, more than the ${max} allowed; nothing was changed`, options);
  }
}

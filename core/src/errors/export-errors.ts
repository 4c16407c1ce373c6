import type { ErrorCode } from './codes';
import { BadRequestError } from './http-error';

/** 400: an export asked for a format it does not write, or for a window of the rows. */
export class ExportFormatError extends BadRequestError {
  override readonly code: ErrorCode = 'export_format';
}

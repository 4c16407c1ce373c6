import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { BadRequestError, PayloadTooLargeError } from '../../errors/http-error';
import type { UploadedFile } from '../../http/neutral';

/** The parts of a multipart/form-data body: its fields, in order, and its files. */
export interface MultipartBody {
  fields: [string, string][];
  files: UploadedFile[];
}

/**
 * Reads a multipart/form-data body into memory. `limit` bounds the whole body, fields and
 * files together, counted on the wire, so many small parts cannot add up past it.
 */
export function readMultipart(req: IncomingMessage, limit: number): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const fields: [string, string][] = [];
    const files: UploadedFile[] = [];
    let received = 0;
    let settled = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: limit, fileSize: limit } });
    } catch (error) {
      reject(malformed(error));
      return;
    }

    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      if (!error) return resolve({ fields, files });
      req.unpipe(parser);
      parser.destroy();
      // Drain rather than destroy the request, so that the error answer can still be sent.
      req.resume();
      reject(error);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(new PayloadTooLargeError());
    };

    parser.on('field', (name, value) => fields.push([name, value]));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => finish(new PayloadTooLargeError()));
      // Also raised when we stop the parser early; finish() ignores it then.
      stream.on('error', (error) => finish(malformed(error)));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        files.push({ field, filename: info.filename ?? '', contentType: info.mimeType, size: data.length, data });
      });
    });
    parser.on('error', (error) => finish(malformed(error)));
    parser.on('close', () => finish());
    req.on('aborted', () => finish(new BadRequestError('Request aborted')));
    req.on('data', count);
    req.pipe(parser);
  });
}

function malformed(cause: unknown): BadRequestError {
  return new BadRequestError('Malformed multipart body', { cause });
}

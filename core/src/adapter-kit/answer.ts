import type { NeutralRequest, NeutralResult } from '../http/neutral';
import { errorToResult, type ErrorLogger } from '../http/render-error';

/** How one framework reads a request into the neutral shape and writes a result back. */
export interface Exchange<T> {
  read(): NeutralRequest | Promise<NeutralRequest>;
  write(result: NeutralResult): T;
}

/**
 * The one sequence every adapter runs per request: read, serve, write. A failure while
 * reading or serving is rendered as the JSON error body; a result that cannot be written
 * (a value JSON cannot encode) is replaced by its error before anything was sent.
 */
export function answer<T>(
  io: Exchange<T>,
  serve: (req: NeutralRequest) => Promise<NeutralResult>,
  logger: ErrorLogger,
): Promise<T> {
  // Promise chains rather than an async function: every request runs this, and a request
  // read without a body (most reads) then costs no extra turn of the microtask queue.
  let served: Promise<NeutralResult>;
  try {
    const read = io.read();
    served = read instanceof Promise ? read.then(serve) : serve(read);
  } catch (error) {
    served = Promise.reject(error);
  }
  const write = (result: NeutralResult): T => {
    try {
      return io.write(result);
    } catch (error) {
      return io.write(errorToResult(error, logger));
    }
  };
  return served.then(write, (error: unknown) => write(errorToResult(error, logger)));
}

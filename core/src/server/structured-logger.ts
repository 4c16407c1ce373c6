/**
 * The least a structured logger must do for the request log and the shutdown helper:
 * fields first, then a message. pino's loggers satisfy it as they are (core imports no
 * logging library), and so does any object with these three methods.
 */
export interface StructuredLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Where the limiter reports violations (warn) and store outages (error). Default: console. */
export interface RateLimitLogger {
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
  info?(message: string, details?: Record<string, unknown>): void;
}

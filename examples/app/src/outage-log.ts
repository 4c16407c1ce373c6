/**
 * Reports a service's outage in at most one line per period, however many errors arrive
 * (a client reconnecting every second, every request failing), and one line when it
 * answers again: a Redis or database outage must not flood the log.
 */
export class OutageLog {
  private since = 0;
  private lastLogged = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private reported = false;

  constructor(
    private readonly service: string,
    private readonly log: (line: string) => void = console.warn,
    private readonly periodMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** One more failure; logged only when no line was written in the last period (a flapping service included). */
  failed(error: unknown): void {
    const now = this.now();
    if (this.failures === 0) this.since = now;
    this.failures++;
    if (now - this.lastLogged < this.periodMs) return;
    this.lastLogged = now;
    this.reported = true;
    this.log(
      `${this.service} unavailable (${failureReason(error)}); ${this.failures} error(s) in ${Math.round((now - this.since) / 1000)} s, next report in ${this.periodMs / 1000} s at most`,
    );
  }

  /** The service answers again: one line, when its outage was reported. */
  recovered(): void {
    if (this.failures === 0) return;
    if (this.reported)
      this.log(
        `${this.service} answers again after ${Math.round((this.now() - this.since) / 1000)} s (${this.failures} error(s))`,
      );
    this.failures = 0;
    this.reported = false;
  }
}

/** What went wrong in a few words: the deepest cause's code, or its first line; never a stack, never a URL (it may carry a password). */
export function failureReason(error: unknown): string {
  let root = error as { cause?: unknown; code?: unknown; message?: unknown } | undefined;
  while (root?.cause) root = root.cause as typeof root;
  // Letters first: a socket or driver code (ECONNREFUSED); PostgreSQL's numeric SQLSTATEs say less than their message.
  if (typeof root?.code === 'string' && /^[A-Z]/.test(root.code)) return root.code;
  return String(root?.message ?? root)
    .split('\n')[0]
    .slice(0, 300)
    .replace(/\w+:\/\/\S*/g, '<url>');
}

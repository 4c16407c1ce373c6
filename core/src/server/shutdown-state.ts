/**
 * Whether the process is shutting down. `healthRoutes({ shutdown })` answers `/readyz`
 * with 503 once `begin()` was called, so a load balancer stops sending new work while
 * in-flight requests finish; `gracefulShutdown` calls it at the first signal.
 */
export class ShutdownState {
  private started = false;

  /** True from the first `begin()` on. */
  get draining(): boolean {
    return this.started;
  }

  /** Marks the process as draining; calling it again changes nothing. */
  begin(): void {
    this.started = true;
  }
}

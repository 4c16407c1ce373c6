// Whether a database server still answers, asked on a connection of its own. A statement
// that has run for a while may be slow (a lock, a big sort) or may never be answered (the
// network dropped the server's packets): only a fresh, trivial round trip tells the two
// apart, and it is what lets a request give up within seconds of an outage rather than
// at the end of the statement timeout.

/** The few client operations a probe needs: open a raw connection, run one query on it, close it. */
export interface ProbeTarget {
  open(): Promise<unknown>;
  ask(connection: unknown): Promise<unknown>;
  close(connection: unknown): Promise<unknown>;
}

/** One liveness probe at a time per client; every slow query waiting on it shares its answer. */
export class Liveness {
  private running: Promise<boolean> | undefined;

  constructor(private readonly target: ProbeTarget) {}

  /** Resolves true when the server answered `select 1` on a fresh connection within `ms`, else false; never rejects. */
  check(ms: number): Promise<boolean> {
    if (!this.running) {
      this.running = this.probe(ms).finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  private probe(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        resolve(false);
      }, ms);
      const close = (connection: unknown) => void this.target.close(connection).catch(() => {});
      this.target.open().then(
        (connection) => {
          if (late) return close(connection);
          this.target
            .ask(connection)
            .then(
              () => {
                clearTimeout(timer);
                resolve(true);
              },
              () => {
                clearTimeout(timer);
                resolve(false);
              },
            )
            .finally(() => close(connection));
        },
        () => {
          clearTimeout(timer);
          resolve(false);
        },
      );
    });
  }
}

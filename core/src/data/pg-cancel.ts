// Cancelling a PostgreSQL statement from the client, the way psql's Ctrl-C does: a
// CancelRequest on a connection of its own, naming the key the server (or the pooler in
// front of it) handed the connection at start-up. PgBouncer answers its own keys and
// passes the request on to the server connection the client is linked to at that moment,
// so this reaches the statement in transaction pooling too, where `pg_cancel_backend` of
// the reported process id would name the wrong process, or none.

interface PgDriver {
  Client: new (settings: unknown) => {
    host: string;
    port: number;
    connection: {
      connect(portOrPath: number | string, host?: string): void;
      cancel(processID: number, secretKey: number): void;
      on(event: string, listener: (...args: unknown[]) => void): void;
      once(event: string, listener: (...args: unknown[]) => void): void;
      end(): void;
      stream?: { destroy(): void };
    };
  };
}

/** A pg connection's cancel key, as node-postgres keeps it. */
export interface PgCancelKey {
  processID?: number;
  secretKey?: number;
}

/** Asks the server to cancel what the connection runs; never throws, gives up after `ms`. */
export function sendPgCancel(driver: unknown, settings: unknown, target: PgCancelKey, ms: number): void {
  if (typeof target.processID !== 'number' || typeof target.secretKey !== 'number') return;
  let canceller: InstanceType<PgDriver['Client']>;
  try {
    canceller = new (driver as PgDriver).Client(settings);
  } catch {
    return;
  }
  const con = canceller.connection;
  const timer = setTimeout(() => con.stream?.destroy(), ms);
  timer.unref();
  con.on('error', () => {});
  con.once('end', () => clearTimeout(timer));
  con.once('connect', () => con.cancel(target.processID!, target.secretKey!));
  try {
    if (canceller.host?.startsWith('/')) con.connect(`${canceller.host}/.s.PGSQL.${canceller.port}`);
    else con.connect(canceller.port, canceller.host);
  } catch {
    clearTimeout(timer);
  }
}

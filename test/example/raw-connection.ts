import { connect } from 'node:net';

/** A TCP connection to a test server, written byte by byte: for half-sent requests and kept-alive sockets. */
export interface RawConnection {
  write(text: string): void;
  /** Everything the server sent, once it has closed the connection. */
  answer(): Promise<string>;
  destroy(): void;
}

/** Opens a connection to `http://host:port`, resolving once it is established. */
export function rawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  // A reset from the server ends the connection as well as a close does.
  socket.on('error', () => undefined);
  const done = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => resolve({
      write: (text) => void socket.write(text),
      answer: () => done,
      destroy: () => socket.destroy(),
    }));
  });
}

/** The status code of the first answer in what a raw connection received. */
export function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

// Another site's page that forges an admin form: served on another port of the same host,
// so it is another origin but the same site, and the browser sends the admin's SameSite
// cookies with its post. Only the CSRF token can then refuse it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running forging page: its origin and how to stop it. */
export interface ForgedSite {
  origin: string;
  close(): Promise<void>;
}

/** Serves at `/` a form that posts `fields` (and no CSRF token) to `action`. */
export function startForgedSite(action: string, fields: Record<string, string>): Promise<ForgedSite> {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input name="${name}" value="${value}">`)
    .join('');
  const page = `<!doctype html><html><head><title>forged</title><link rel="icon" href="data:,"></head><body><form method="post" action="${action}">${inputs}<button type="submit">Win a prize</button></form></body></html>`;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

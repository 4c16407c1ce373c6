import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startExample, type ExampleServer } from './example-server';

// Bogus sign-ins are cheap to send and dear to check (a bcrypt hash each, unknown names
// included). Two addresses flooding /auth/token must not keep a third from signing in:
// the hashing pool admits an address with nothing in flight and serves addresses in turn,
// and each address's failed checks are rationed. Before, every correct sign-in was a 503.
describe('example: signing in while two addresses flood /auth/token', () => {
  let ex: ExampleServer;
  beforeAll(async () => {
    // Real cost (10): a few hashes fill the pool of this machine for a while.
    ex = await startExample('sqlite', { build: { bcryptRounds: 10 }, trustedProxies: ['127.0.0.1'], users: ['legit'] });
  });
  afterAll(async () => ex?.close());

  const token = (address: string, username: string, password: string) =>
    ex
      .client()
      .request('POST', '/auth/token', { form: { username, password }, headers: { 'x-forwarded-for': address } });

  it('serves every correct sign-in from a third address while the flood runs', async () => {
    let flooding = true;
    const seen: number[] = [];
    // Each attacker keeps six requests in flight, each a fresh unknown name (no lockout).
    const attacker = (address: string) =>
      Array.from({ length: 6 }, async (_, lane) => {
        for (let i = 0; flooding; i++)
          seen.push((await token(address, `nobody-${lane}-${i}`, 'a bogus password')).status);
      });
    const flood = [...attacker('203.0.113.1'), ...attacker('203.0.113.2')];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const legit: number[] = [];
    for (let i = 0; i < 8; i++) {
      legit.push((await token('198.51.100.10', 'legit', PASSWORD)).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    flooding = false;
    await Promise.all(flood);
    expect(legit).toEqual(Array(8).fill(200));
    // The flood was real: the attackers were refused (429/503) as well as checked (401).
    expect(seen.filter((status) => status === 401).length).toBeGreaterThan(4);
    expect(seen.filter((status) => status !== 401 && status !== 429 && status !== 503)).toEqual([]);
  });
});

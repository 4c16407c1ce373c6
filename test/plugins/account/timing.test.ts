import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koaHarness } from '../../adapters/koa-harness';
import { PASSWORD, startAccountApp, type AccountEnv } from './fixture';

// Account enumeration through timing: a sign-in for an unknown user must cost what a
// wrong password costs (one bcrypt of the same cost against a dummy hash). Cost 8
// makes bcrypt dominate the request time, so the medians are comparable.
describe('account: sign-in timing does not tell whether an account exists', () => {
  let env: AccountEnv;
  beforeAll(async () => {
    env = await startAccountApp(koaHarness, 'sqlite', { password: { bcryptRounds: 8 } });
    await env.user('timed');
  });
  afterAll(async () => env?.close());

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const timeLogin = async (username: string) => {
    // Keep the lockout out of the measurement.
    await env.db.knex('account_login_failures').delete();
    const started = performance.now();
    const res = await env.client().login(username, 'a wrong password');
    expect(res.status).toBe(401);
    return performance.now() - started;
  };

  it('takes as long for an unknown user as for a wrong password', async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    await timeLogin('timed'); // warm-up
    for (let i = 0; i < 7; i++) {
      known.push(await timeLogin('timed'));
      unknown.push(await timeLogin(`ghost${i}`));
    }
    const ratio = median(unknown) / median(known);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    expect(PASSWORD).toBeTruthy();
  });
});

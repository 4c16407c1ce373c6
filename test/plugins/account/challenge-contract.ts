// The contract every challenge store keeps (database, Redis, Redis Cluster): a challenge is
// found by its token only, takes at most 5 attempts even when they come at once, is used up
// by exactly one caller, and dies when it expires.
import { expect, it } from 'vitest';
import {
  CHALLENGE_MAX_ATTEMPTS,
  type ChallengeRecord,
  type ChallengeStore,
} from '../../../plugins/account/src/mfa/challenges';

export const NOW = 1_700_000_000_000;
export const record = (userId = '7'): ChallengeRecord => ({
  userId,
  purpose: 'sign-in',
  intent: { transport: 'bearer', scope: 'items:read' },
  tokenVersion: 3,
  secret: null,
  expiresAt: NOW + 300_000,
});

export function challengeContract(store: () => ChallengeStore): void {
  it('finds a challenge by its token only, and peeking counts nothing', async () => {
    const token = await store().create(record(), NOW);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (let i = 0; i < 10; i++) expect(await store().peek(token, NOW)).toEqual(record());
    expect(await store().peek(`${token}x`, NOW)).toBeNull();
    expect(await store().attempt('unknown', NOW)).toBeNull();
  });

  it(`takes ${CHALLENGE_MAX_ATTEMPTS} attempts, even when 20 come at once`, async () => {
    const token = await store().create(record(), NOW);
    const results = await Promise.all(Array.from({ length: 20 }, () => store().attempt(token, NOW)));
    expect(results.filter(Boolean)).toHaveLength(CHALLENGE_MAX_ATTEMPTS);
    expect(await store().peek(token, NOW)).toBeNull();
    // Out of attempts, but a caller that took the last one may still use it up.
    expect(await store().consume(token, NOW)).toBe(true);
  });

  it('is used up by exactly one of concurrent callers, and then takes no attempt', async () => {
    const token = await store().create(record(), NOW);
    expect(await store().attempt(token, NOW)).toEqual(record());
    const used = await Promise.all(Array.from({ length: 8 }, () => store().consume(token, NOW)));
    expect(used.filter(Boolean)).toHaveLength(1);
    expect(await store().attempt(token, NOW)).toBeNull();
    expect(await store().peek(token, NOW)).toBeNull();
  });

  it('dies when it expires', async () => {
    const token = await store().create(record(), NOW);
    const later = NOW + 300_000;
    expect(await store().peek(token, later)).toBeNull();
    expect(await store().attempt(token, later)).toBeNull();
    expect(await store().consume(token, later)).toBe(false);
  });
}

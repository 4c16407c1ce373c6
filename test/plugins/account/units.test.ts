import { describe, expect, it } from 'vitest';
import { BCRYPT_MAX_BYTES, bcryptInput, normalizePassword } from '@crudsmith/core/auth';
import { lockSeconds } from '../../../core/src/security/login-lockout';
import { AccessTokens } from '../../../plugins/account/src/bearer/access-token';
import { Passwords } from '../../../plugins/account/src/password';

describe('bcryptInput (passwords over 72 bytes are pre-hashed, never truncated)', () => {
  it('keeps passwords of up to 72 bytes as they are (NFKC-normalised)', () => {
    expect(bcryptInput('a'.repeat(BCRYPT_MAX_BYTES))).toBe('a'.repeat(72));
    expect(bcryptInput('ﬁne')).toBe('fine');
    expect(normalizePassword('e\u0301')).toBe('\u00e9');
  });

  it('pre-hashes longer ones to 44 bytes that depend on every byte', () => {
    const a = bcryptInput(`${'a'.repeat(72)}1`);
    const b = bcryptInput(`${'a'.repeat(72)}2`);
    expect(Buffer.byteLength(a)).toBe(44);
    expect(a).not.toBe(b);
    // Multi-byte characters count in bytes: 25 × 3 bytes = 75 > 72.
    expect(bcryptInput('€'.repeat(25))).toHaveLength(44);
  });
});

describe('Passwords', () => {
  const passwords = new Passwords({ bcryptRounds: 4, blocklist: ['crudsmith rocks'] });

  it('verifies, and refuses everything when there is no usable hash', async () => {
    const hash = await passwords.hash('a long enough secret');
    expect(await passwords.verify('a long enough secret', hash)).toBe(true);
    expect(await passwords.verify('a long enough secreT', hash)).toBe(false);
    expect(await passwords.verify('a long enough secret', null)).toBe(false);
    expect(await passwords.verify('a long enough secret', '!disabled')).toBe(false);
    expect(await passwords.verify('x'.repeat(5000), hash)).toBe(false);
  });

  it('checks length in characters, the common list, the app blocklist and NUL', () => {
    expect(passwords.check('ab', ['p'])[0].type).toBe('string_too_short');
    expect(passwords.check('🎉🎉🎉🎉🎉🎉🎉🎉', ['p'])).toEqual([]);
    expect(passwords.check('iloveyou', ['p'])[0].type).toBe('password_common');
    expect(passwords.check('CRUDSMITH ROCKS', ['p'])[0].type).toBe('password_common');
    expect(passwords.check('abc\u0000defgh', ['p'])[0].type).toBe('value_error');
    expect(passwords.check(undefined, ['p'])[0].type).toBe('missing');
    expect(passwords.check('someone', ['p'], ['someone'])[0].type).toBe('string_too_short');
    expect(passwords.check('someone1', ['p'], ['SomeOne1'])[0].type).toBe('password_context');
  });

  it('never goes below 8 characters, whatever is configured', () => {
    expect(new Passwords({ minLength: 4 }).minLength).toBe(8);
  });
});

describe('lockSeconds', () => {
  const policy = { threshold: 5, baseSeconds: 60, maxSeconds: 86_400, resetAfterSeconds: 86_400 };
  it('locks the first period for baseSeconds, doubling each period, never beyond a day', () => {
    expect(lockSeconds(0, policy)).toBe(60);
    expect(lockSeconds(1, policy)).toBe(120);
    expect(lockSeconds(3, policy)).toBe(480);
    expect(lockSeconds(15, policy)).toBe(86_400);
    expect(lockSeconds(10_000, policy)).toBe(86_400);
  });
});

describe('AccessTokens', () => {
  const key = async () => Buffer.from('k'.repeat(32));
  const tokens = new AccessTokens(key);
  const claims = { sub: '1', token_version: 0, scope: '', iat: 100, exp: 200, auth_time: 100 };

  it('round-trips and expires', async () => {
    const token = await tokens.sign(claims);
    expect(await tokens.verify(token, 150)).toMatchObject({ sub: '1', typ: 'access' });
    expect(await tokens.verify(token, 200)).toBeNull();
  });

  it('refuses another key, another header, or a payload that is not JSON', async () => {
    const token = await tokens.sign(claims);
    expect(await new AccessTokens(async () => Buffer.from('x'.repeat(32))).verify(token, 150)).toBeNull();
    const [, payload, signature] = token.split('.');
    const hs512 = Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' })).toString('base64url');
    expect(await tokens.verify(`${hs512}.${payload}.${signature}`, 150)).toBeNull();
    expect(await tokens.verify('a.b', 150)).toBeNull();
  });
});

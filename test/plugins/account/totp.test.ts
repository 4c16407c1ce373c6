// TOTP (RFC 6238 through otplib), sealed secrets and recovery codes, below HTTP.
import { describe, expect, it } from 'vitest';
import { normalizeRecoveryCode } from '../../../plugins/account/src/mfa/recovery-codes';
import { SecretBox } from '../../../plugins/account/src/mfa/secret-box';
import { matchTotp, newTotpSecret, totpCode, totpUri } from '../../../plugins/account/src/mfa/totp';

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890" (Base32 below), 8-digit codes.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP codes (RFC 6238: SHA-1, 30-second steps)', () => {
  it.each(RFC_VECTORS)(
    'at %i s the 8-digit code is %s, and the 6-digit code its last six digits',
    async (time, code) => {
      expect(await totpCode(RFC_SECRET, time, 8)).toBe(code);
      expect(await totpCode(RFC_SECRET, time)).toBe(code.slice(2));
    },
  );

  it.each(RFC_VECTORS)(
    'accepts the code of %i s within one step either way, and names its step',
    async (time, code) => {
      const step = Math.floor(time / 30);
      expect(await matchTotp(RFC_SECRET, code.slice(2), time)).toBe(step);
      expect(await matchTotp(RFC_SECRET, code.slice(2), time - 30)).toBe(step);
      expect(await matchTotp(RFC_SECRET, code.slice(2), time + 30)).toBe(step);
    },
  );

  it('refuses a code two steps away, and anything but six digits', async () => {
    const code = (await totpCode(RFC_SECRET, 1111111111)).slice(0);
    expect(await matchTotp(RFC_SECRET, code, 1111111111 + 60)).toBeNull();
    expect(await matchTotp(RFC_SECRET, code, 1111111111 - 60)).toBeNull();
    for (const bad of ['', '12345', '1234567', '12345a', ' 12345', '１２３４５６', '9'.repeat(10_000)]) {
      expect(await matchTotp(RFC_SECRET, bad, 1111111111)).toBeNull();
    }
  });

  it('makes 160-bit Base32 secrets and an otpauth URI authenticator apps read', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'My App', 'alice'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('My App');
    // The defaults every app assumes (SHA1, 6 digits, 30 s) may be left out of the URI.
    expect(uri.searchParams.get('algorithm') ?? 'SHA1').toBe('SHA1');
    expect(uri.searchParams.get('digits') ?? '6').toBe('6');
    expect(uri.searchParams.get('period') ?? '30').toBe('30');
  });
});

describe('sealed secrets (AES-256-GCM under a key derived from the app secret)', () => {
  const box = new SecretBox(async () => 'x'.repeat(40), 'totp-secret');

  it('opens what it sealed, and never stores the plain text', async () => {
    const sealed = await box.seal('JBSWY3DPEHPK3PXPJBSWY3DP', 'user-1');
    expect(sealed).not.toContain('JBSWY3DP');
    expect(await box.seal('JBSWY3DPEHPK3PXPJBSWY3DP', 'user-1')).not.toBe(sealed);
    expect(await box.open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXPJBSWY3DP');
  });

  it('refuses a value of another account, under another key, or altered', async () => {
    const sealed = await box.seal('JBSWY3DPEHPK3PXPJBSWY3DP', 'user-1');
    await expect(box.open(sealed, 'user-2')).rejects.toThrow();
    await expect(new SecretBox(async () => 'y'.repeat(40), 'totp-secret').open(sealed, 'user-1')).rejects.toThrow();
    await expect(new SecretBox(async () => 'x'.repeat(40), 'other-purpose').open(sealed, 'user-1')).rejects.toThrow();
    const [v, iv, body, tag] = sealed.split('.');
    const flipped = `${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    await expect(box.open([v, iv, flipped, tag].join('.'), 'user-1')).rejects.toThrow();
  });
});

describe('recovery code input', () => {
  it('ignores case, spaces and dashes, and refuses anything else', () => {
    expect(normalizeRecoveryCode('abcd-efgh-jkmn')).toBe('abcdefghjkmn');
    expect(normalizeRecoveryCode('ABCD EFGH JKMN')).toBe('abcdefghjkmn');
    expect(normalizeRecoveryCode('abcd-efgh-jkm')).toBeNull();
    expect(normalizeRecoveryCode('abcd-efgh-jkm0')).toBeNull();
    expect(normalizeRecoveryCode('-'.repeat(10_000))).toBeNull();
  });
});

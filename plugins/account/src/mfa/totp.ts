import { generate, generateSecret, generateURI, verify } from 'otplib';

/** The TOTP parameters every authenticator app understands: 6 digits, HMAC-SHA-1, 30-second steps. */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps of clock drift accepted either way (one: the previous and the next code also pass). */
export const TOTP_DRIFT_STEPS = 1;

const CODE = /^[0-9]{6}$/;

/** A new TOTP secret: 20 random bytes (160 bits, as RFC 4226 recommends), Base32. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://totp/...` URI an authenticator app reads from a QR code. */
export function totpUri(secret: string, issuer: string, label: string): string {
  return generateURI({ issuer, label, secret, algorithm: 'sha1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS });
}

/** The code of a secret at a moment (Unix seconds); `digits` 8 reproduces RFC 6238's test vectors. */
export function totpCode(secret: string, epochSeconds: number, digits: 6 | 8 = TOTP_DIGITS): Promise<string> {
  return generate({ secret, epoch: epochSeconds, algorithm: 'sha1', digits, period: TOTP_PERIOD_SECONDS });
}

/**
 * The time step a code belongs to, when it is the secret's code for the step of
 * `epochSeconds` or one step either side; null otherwise. Anything but six digits is
 * null before any HMAC is computed. Whether the step was used already is the caller's
 * (atomic) business.
 */
export async function matchTotp(secret: string, code: string, epochSeconds: number): Promise<number | null> {
  if (code.length !== TOTP_DIGITS || !CODE.test(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epoch: epochSeconds,
    algorithm: 'sha1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_DRIFT_STEPS * TOTP_PERIOD_SECONDS,
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

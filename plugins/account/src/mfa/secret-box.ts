import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encrypts small secrets at rest (TOTP secrets) with AES-256-GCM under a key derived
 * from the app's secret by HKDF-SHA-256, one key per purpose. Each value is bound to
 * its context (the account it belongs to) as associated data, so a sealed value copied
 * to another account's row does not open there.
 */
export class SecretBox {
  private key?: Promise<Buffer>;

  constructor(
    private readonly secret: () => Promise<string>,
    private readonly purpose: string,
  ) {}

  /** `v1.<iv>.<ciphertext>.<tag>`, base64url. */
  async seal(plain: string, context: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.derived(), iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, body, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plain value; throws when the value was altered, sealed for another context or under another key. */
  async open(sealed: string, context: string): Promise<string> {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || !body || !tag) throw new Error('account: a sealed secret is malformed');
    const decipher = createDecipheriv('aes-256-gcm', await this.derived(), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  private derived(): Promise<Buffer> {
    this.key ??= this.secret().then((secret) =>
      Buffer.from(hkdfSync('sha256', secret, 'crudsmith/account', this.purpose, 32)),
    );
    return this.key;
  }
}

import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import {
  BadRequestError,
  PayloadTooLargeError,
  ValidationError,
  type Dependency,
  type NeutralRequest,
  type RouteDescriptor,
  type Storage,
} from '@crudsmith/core';

/** Where uploaded avatars are served from; the default avatar lives beside them. */
export const AVATAR_URL_PREFIX = '/static/avatars/';

/** The image kinds an avatar may be (what browsers show), and the extension each is stored with. */
const KINDS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const CONTENT_TYPES = Object.fromEntries(Object.entries(KINDS).map(([type, ext]) => [ext, type]));
/** Stored names are ours alone: 32 random hex digits and the sniffed kind's extension. */
const STORED_NAME = /^[0-9a-f]{32}\.(png|jpg|gif|webp)$/;
/** Room for the multipart framing and small fields around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** Stored objects are keyed `avatars/<name>` (with a local folder: `DATA_DIR/avatars/<name>`, as before stores). */
const KEY_PREFIX = 'avatars/';

/** Where avatars live (a local folder or an S3 bucket) and how large one may be (AVATAR_MAX_BYTES, default 2 MiB). */
export interface AvatarOptions {
  storage: Storage;
  maxBytes?: number;
  /** Run before an upload is read further (the app's rate limiter): every upload costs disk and CPU. */
  uploadDependencies?: Dependency[];
}

/**
 * The avatar files: checks an upload (an image of the kind it declares, within the size
 * limit), stores it under a generated name and serves it back with its real type. Shared
 * by every version's upload route.
 */
export class AvatarStore {
  readonly storage: Storage;
  readonly maxBytes: number;
  readonly uploadDependencies: Dependency[];

  constructor(options: AvatarOptions) {
    this.storage = options.storage;
    this.uploadDependencies = options.uploadDependencies ?? [];
    this.maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 1)
      throw new Error(`AVATAR_MAX_BYTES must be a positive number of bytes, got ${options.maxBytes}`);
  }

  /** The body limit an upload route needs: the file and its multipart framing. */
  get bodyLimit(): number {
    return this.maxBytes + MULTIPART_OVERHEAD;
  }

  /**
   * Stores the request's multipart `file` and answers its URL. 422 without exactly one
   * such part, 400 when its content type is not `image/*` or its bytes are not an image of
   * that kind (PNG, JPEG, GIF or WebP), 413 above `maxBytes`.
   */
  async save(req: NeutralRequest): Promise<string> {
    const parts = req.files.filter((file) => file.field === 'file');
    if (parts.length !== 1)
      throw ValidationError.of(
        ['body', 'file'],
        parts.length === 0 ? 'Field required: a multipart file part named file' : 'Send one file only',
        'missing',
      );
    const [file] = parts;
    const declared = mediaType(file.contentType);
    if (!declared.startsWith('image/'))
      throw new BadRequestError(`Content type ${declared || '(none)'} is not an image`);
    if (file.size > this.maxBytes) throw new PayloadTooLargeError(`The avatar is larger than ${this.maxBytes} bytes`);
    const ext = KINDS[declared];
    if (!ext) throw new BadRequestError(`Avatars may be ${Object.keys(KINDS).join(', ')}; not ${declared}`);
    // The declared type is the client's word: the bytes must agree with it.
    const sniffed = await fileTypeFromBuffer(file.data);
    if (sniffed?.mime !== declared) throw new BadRequestError(`The file is not a ${declared} image`);
    const name = `${randomBytes(16).toString('hex')}.${ext}`;
    await this.storage.put(`${KEY_PREFIX}${name}`, file.data, { contentType: declared });
    return `${AVATAR_URL_PREFIX}${name}`;
  }

  /**
   * Removes a stored avatar by its URL (a replaced one, or one whose row update failed);
   * anything else, the default included, is left. Best effort: a store that fails here
   * must not hide the error that led to the removal.
   */
  async remove(url: unknown): Promise<void> {
    const name =
      typeof url === 'string' && url.startsWith(AVATAR_URL_PREFIX) ? url.slice(AVATAR_URL_PREFIX.length) : '';
    if (STORED_NAME.test(name)) await this.storage.delete(`${KEY_PREFIX}${name}`).catch(() => undefined);
  }

  /**
   * `GET /static/avatars/:name`: a stored avatar with its real type, never sniffed by the
   * browser. From S3 the object is streamed through this route (not redirected to the
   * bucket), so its URL, headers and access stay the app's whatever the store.
   */
  route(): RouteDescriptor {
    return {
      method: 'GET',
      path: `${AVATAR_URL_PREFIX}:name`,
      operation: 'static_avatar',
      dependencies: [],
      handler: async (req) => {
        const name = req.params.name;
        const stored = STORED_NAME.test(name) ? await this.storage.get(`${KEY_PREFIX}${name}`) : null;
        if (!stored) return { status: 404, json: { detail: 'Not Found' } };
        const headers = {
          'Content-Type': CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1)],
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'",
          // A name is never reused: a new upload gets a new URL.
          'Cache-Control': 'public, max-age=31536000, immutable',
        };
        return { status: 200, headers, body: stored.body };
      },
    };
  }
}

/** `image/PNG; charset=x` → `image/png`; `image/jpg` (a common misspelling) → `image/jpeg`. */
function mediaType(contentType: string): string {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'image/jpg' || type === 'image/pjpeg' ? 'image/jpeg' : type;
}

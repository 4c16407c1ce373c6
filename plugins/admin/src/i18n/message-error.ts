import { en, type MessageKey } from './en';

// An error a page shows in the reader's language: thrown with the English message as its
// detail (what a JSON client reads), it carries its catalogue key, so the error page
// translates it where the request's language is known.

const KEYS = new WeakMap<object, MessageKey>();

/** The error `make` builds from the English message of `key`, shown on a page in the reader's language. */
export function messageError<E extends Error>(make: (english: string) => E, key: MessageKey): E {
  const error = make(en[key]);
  KEYS.set(error, key);
  return error;
}

/** The catalogue key an error was thrown with (`messageError`), if any. */
export function messageKeyOf(error: unknown): MessageKey | undefined {
  return typeof error === 'object' && error !== null ? KEYS.get(error) : undefined;
}

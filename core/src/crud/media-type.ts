import { UnsupportedMediaTypeError } from '../errors/http-error';
import type { NeutralRequest } from '../http/neutral';

// The media types a generated write reads its body as. The adapters parse any JSON-like
// type (`+json` included), so the route itself says which of them it means: a create
// takes `application/json`, an update that or a JSON merge patch, and any other declared
// type is refused before the body is looked at.

/** A JSON merge patch (RFC 7396): `null` clears a field, an object merges into a JSON column. */
export const MERGE_PATCH = 'application/merge-patch+json';
/** The plain JSON media type. */
export const JSON_TYPE = 'application/json';

/** The body media types of a create. */
export const CREATE_TYPES: readonly string[] = [JSON_TYPE];
/** The body media types of an update. */
export const UPDATE_TYPES: readonly string[] = [JSON_TYPE, MERGE_PATCH];

/**
 * The request's body media type among `accepted` (lower case, parameters dropped);
 * undefined when it declares none; a 415 when it declares another.
 */
export function bodyMediaType(req: NeutralRequest, accepted: readonly string[]): string | undefined {
  const header = req.headers['content-type'];
  if (header === undefined) return undefined;
  const type = header.split(';', 1)[0].trim().toLowerCase();
  if (accepted.includes(type)) return type;
  throw new UnsupportedMediaTypeError(`Content-Type must be ${accepted.join(' or ')}`);
}

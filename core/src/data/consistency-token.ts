import { parseLsn, runWithConsistency, type Consistency } from './consistency';
import type { NeutralRequest, NeutralResult } from '../http/neutral';

// Read-your-writes across processes. A request that wrote through a primary with replicas
// answers the primary's WAL position after its writes, as a header for API clients and a
// cookie for browsers; a later request carrying it (the header first, else the cookie)
// reads from a replica only once that replica has replayed past it, else from the primary.

/** The request and response header of the consistency token. */
export const CONSISTENCY_HEADER = 'crudsmith-consistency';
/** The cookie of the consistency token (HttpOnly, SameSite=Lax). */
export const CONSISTENCY_COOKIE = 'crudsmith_consistency';
// Past this, a replica still that far behind is skipped for its lag anyway.
const COOKIE_SECONDS = 60;

/** Serves a request under the replica rule: its token read, and a new one answered when it wrote. */
export function withConsistencyToken(req: NeutralRequest, serve: () => Promise<NeutralResult>): Promise<NeutralResult> {
  const given = req.headers[CONSISTENCY_HEADER] ?? req.cookies[CONSISTENCY_COOKIE];
  const consistency: Consistency = {
    after: typeof given === 'string' ? parseLsn(given) : undefined,
    primaryOnly: false,
  };
  return runWithConsistency(consistency, serve).then(async (result) => {
    if (!consistency.wrote || result.status >= 400) return result;
    // A token that cannot be had leaves the answer as it is: the client may then read a lagging replica.
    const lsn = await consistency.wrote.position().catch(() => undefined);
    if (lsn === undefined) return result;
    return {
      ...result,
      headers: { ...result.headers, [CONSISTENCY_HEADER]: lsn },
      cookies: [
        ...(result.cookies ?? []),
        { name: CONSISTENCY_COOKIE, value: lsn, httpOnly: true, sameSite: 'lax', path: '/', maxAge: COOKIE_SECONDS },
      ],
    };
  });
}

import type { Session } from './session-types';
import type { SessionRecord } from './session-store';

// Conversions between the stored record and the handler-facing Session.

/** Whether a stored session is past its idle or absolute expiry. */
export function expired(record: SessionRecord, now: number): boolean {
  return now >= record.idleExpiresAt || now >= record.absoluteExpiresAt;
}

/** The handler-facing view of a stored session. */
export function toSession(record: SessionRecord): Session {
  return {
    handle: record.handle,
    userId: record.userId,
    data: record.data,
    createdAt: new Date(record.createdAt),
    lastSeenAt: new Date(record.lastSeenAt),
    idleExpiresAt: new Date(record.idleExpiresAt),
    absoluteExpiresAt: new Date(record.absoluteExpiresAt),
    userAgent: record.userAgent,
    ipAddress: record.ipAddress,
    idHash: record.idHash,
  };
}

/** The stored form of a session. */
export function fromSession(session: Session): SessionRecord {
  return {
    idHash: session.idHash,
    handle: session.handle,
    userId: session.userId,
    data: session.data,
    createdAt: session.createdAt.getTime(),
    lastSeenAt: session.lastSeenAt.getTime(),
    idleExpiresAt: session.idleExpiresAt.getTime(),
    absoluteExpiresAt: session.absoluteExpiresAt.getTime(),
    userAgent: session.userAgent,
    ipAddress: session.ipAddress,
  };
}

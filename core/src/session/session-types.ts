/** A live session as handlers see it. The secret id is not in here: only the cookie has it. */
export interface Session {
  /** The public handle: what a user sees and revokes by; never the secret id. */
  readonly handle: string;
  readonly userId: string;
  data: Record<string, unknown>;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly idleExpiresAt: Date;
  readonly absoluteExpiresAt: Date;
  readonly userAgent: string | null;
  readonly ipAddress: string | null;
  /** The stored key (SHA-256 of the secret id). */
  readonly idHash: string;
}

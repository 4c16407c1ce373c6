import type { SessionChanges, SessionRecord, SessionStore } from './session-store';

/** Sessions in this process's memory: for tests and single-process tools, never for a cluster. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();

  async insert(record: SessionRecord): Promise<void> {
    this.sessions.set(record.idHash, structuredClone(record));
  }

  async get(idHash: string): Promise<SessionRecord | null> {
    const record = this.sessions.get(idHash);
    return record ? structuredClone(record) : null;
  }

  async update(idHash: string, changes: SessionChanges): Promise<boolean> {
    const record = this.sessions.get(idHash);
    if (!record) return false;
    Object.assign(record, structuredClone(changes));
    return true;
  }

  async delete(idHashes: readonly string[]): Promise<number> {
    let count = 0;
    for (const idHash of idHashes) if (this.sessions.delete(idHash)) count++;
    return count;
  }

  async listByUser(userId: string): Promise<SessionRecord[]> {
    return [...this.sessions.values()].filter((r) => r.userId === userId).map((r) => structuredClone(r));
  }

  async deleteExpired(now: number): Promise<number> {
    const expired = [...this.sessions.values()].filter((r) => r.idleExpiresAt <= now || r.absoluteExpiresAt <= now);
    return this.delete(expired.map((r) => r.idHash));
  }
}

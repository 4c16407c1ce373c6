import type { ApiKeyEvent } from '@crudsmith/core/auth';
import type { EventLog } from './event-log';

/**
 * Writes an API key event, made or used through the API, to the admin's event log: the
 * key's id as the record, its owner, name and prefix as details (never the secret).
 */
export async function recordApiKeyEvent(events: EventLog, event: ApiKeyEvent): Promise<void> {
  await events.recordFrom({ ipAddress: event.ipAddress }, null, [
    {
      type: event.type,
      model: 'api_keys',
      recordId: event.keyId,
      details: { user_id: event.userId, name: event.name, prefix: event.prefix },
    },
  ]);
}

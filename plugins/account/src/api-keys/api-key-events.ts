import type { AccountCore } from '../account-core';
import type { ApiKeyEvent } from '../options';
import type { ApiKey } from './api-keys';

/**
 * Tells the app's `onApiKeyEvent` of a key made, revoked or used for the first time; a
 * hook's failure is reported, never the caller's problem (the key was made or used).
 */
export async function notifyApiKeyEvent(
  core: AccountCore,
  type: ApiKeyEvent['type'],
  key: ApiKey,
  ipAddress: string,
): Promise<void> {
  const hook = core.options.onApiKeyEvent;
  if (!hook) return;
  const event = {
    type,
    userId: key.userId,
    keyId: key.id,
    name: key.name,
    prefix: key.prefix,
    ipAddress,
    at: new Date(core.now()),
  };
  try {
    await hook(event);
  } catch (error) {
    console.error('account: onApiKeyEvent failed', error);
  }
}

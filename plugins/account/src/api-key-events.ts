import type { AccountOptions, ApiKeyEvent } from './options';
import type { ApiKey } from './api-key-store';

/** What telling a key event needs: the app's hook and the clock (the core, or a part holding it). */
export interface KeyEventContext {
  options: Pick<AccountOptions, 'onApiKeyEvent'>;
  now: () => number;
}

/**
 * Tells the app's `onApiKeyEvent` of a key made, revoked or used for the first time; a
 * hook's failure is reported, never the caller's problem (the key was made or used).
 */
export async function notifyApiKeyEvent(
  context: KeyEventContext,
  type: ApiKeyEvent['type'],
  key: ApiKey,
  ipAddress: string,
): Promise<void> {
  const hook = context.options.onApiKeyEvent;
  if (!hook) return;
  const event = {
    type,
    userId: key.userId,
    keyId: key.id,
    name: key.name,
    prefix: key.prefix,
    ipAddress,
    at: new Date(context.now()),
  };
  try {
    await hook(event);
  } catch (error) {
    console.error('account: onApiKeyEvent failed', error);
  }
}

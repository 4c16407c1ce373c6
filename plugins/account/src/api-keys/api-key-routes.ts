import { NotFoundError, ValidationError, type RouteDescriptor, type ValidationIssue } from '@crudsmith/core';
import type { AccountCore, Credential } from '../account-core';
import { bodyObject } from '../body';
import { credentialDependency } from '../dependencies';
import { route } from '../route';
import { checkPermissions } from '../roles';
import type { ApiKeyEvent } from '../options';
import type { ApiKey, ApiKeys } from '../api-key-store';
import { notifyApiKeyEvent } from '../api-key-events';

const DAY_MS = 86_400_000;
const MAX_DAYS = 3650;

/** `POST`/`GET /api-keys` and `DELETE /api-keys/:id`: a signed-in user's own keys (never with a key). */
export function apiKeyRoutes(core: AccountCore, keys: ApiKeys): RouteDescriptor[] {
  const person = credentialDependency(core, { optional: false });
  const { users } = core;
  const owner = (credential: Credential) => String(users.idOf(credential.row));
  const notify = (type: ApiKeyEvent['type'], key: ApiKey, ipAddress: string) =>
    notifyApiKeyEvent(core, type, key, ipAddress);
  return [
    route(
      {
        method: 'POST',
        path: '/api-keys',
        operation: 'api_key_create',
        summary: 'Create an API key (answered once)',
        dependencies: [person],
      },
      async (req) => {
        const credential = (await req.resolve(person)) as Credential;
        const input = await readKeyInput(core, credential, bodyObject(req));
        const now = core.now();
        const { key, record } = await keys.create(
          {
            userId: owner(credential),
            name: input.name,
            scopes: input.scopes,
            tierId: input.tierId,
            tokenVersion: users.tokenVersionOf(credential.row),
            expiresAt: input.days === null ? null : now + input.days * DAY_MS,
          },
          now,
        );
        await notify('api_key_created', record, req.clientAddress);
        return { status: 201, json: { ...keyJson(record), key } };
      },
    ),
    route(
      {
        method: 'GET',
        path: '/api-keys',
        operation: 'api_key_list',
        summary: 'List your API keys',
        dependencies: [person],
      },
      async (req) => {
        const credential = (await req.resolve(person)) as Credential;
        const list = await keys.list(owner(credential), users.tokenVersionOf(credential.row));
        return { status: 200, json: list.map(keyJson) };
      },
    ),
    route(
      {
        method: 'DELETE',
        path: '/api-keys/:id',
        operation: 'api_key_revoke',
        summary: 'Revoke an API key',
        dependencies: [person],
      },
      async (req) => {
        const credential = (await req.resolve(person)) as Credential;
        const id = /^\d{1,15}$/.test(req.params.id) ? Number(req.params.id) : null;
        // Another user's key is a 404 as well: its existence is not revealed.
        const revoked = id === null ? null : await keys.revoke(owner(credential), id, core.now());
        if (!revoked) throw new NotFoundError('API key not found');
        await notify('api_key_revoked', revoked, req.clientAddress);
        return { status: 204 };
      },
    ),
  ];
}

/** A key as answered: everything but the secret. */
function keyJson(key: ApiKey): Record<string, unknown> {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    tier_id: key.tierId,
    created_at: iso(key.createdAt),
    expires_at: iso(key.expiresAt),
    last_used_at: iso(key.lastUsedAt),
  };
}

// `scopes` must be permissions the owner holds (a superuser may name any): a key never widens
// access. Only a superuser sets a key's tier: anyone else would pick their own rate limit.
async function readKeyInput(
  core: AccountCore,
  credential: Credential,
  body: Record<string, unknown>,
): Promise<{ name: string; scopes: string[]; days: number | null; tierId: number | null }> {
  const issues: ValidationIssue[] = [];
  const { name, expires_in_days: days, tier_id: tierId } = body;
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100)
    issues.push({ loc: ['body', 'name'], msg: 'A name of 1 to 100 characters is required', type: 'string_type' });
  if (days !== undefined && days !== null && !(Number.isInteger(days) && Number(days) >= 1 && Number(days) <= MAX_DAYS))
    issues.push({
      loc: ['body', 'expires_in_days'],
      msg: `Input should be a whole number of days from 1 to ${MAX_DAYS}`,
      type: 'int_range',
    });
  if (tierId !== undefined && tierId !== null && !(Number.isInteger(tierId) && Number(tierId) >= 1))
    issues.push({ loc: ['body', 'tier_id'], msg: 'Input should be a tier id (a positive integer)', type: 'int_type' });
  const extra = Object.keys(body).filter((k) => !['name', 'scopes', 'expires_in_days', 'tier_id'].includes(k));
  for (const key of extra)
    issues.push({ loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  if (issues.length > 0) throw new ValidationError(issues);
  const scopes = checkPermissions(body.scopes ?? [], ['body', 'scopes']);
  const { users } = core;
  const superuser = users.flag(credential.row, users.columns.isSuperuser);
  if (!superuser && tierId !== undefined && tierId !== null)
    throw ValidationError.of(['body', 'tier_id'], "Only a superuser sets a key's tier", 'tier_not_allowed');
  if (!superuser) {
    const held = (await core.roles.rolesOf(users.idOf(credential.row))).permissions;
    const beyond = scopes.filter((s) => !held.includes(s));
    if (beyond.length > 0)
      throw ValidationError.of(
        ['body', 'scopes'],
        `Permissions you do not hold: ${beyond.join(', ')}`,
        'scope_not_held',
      );
  }
  return {
    name: String(name).trim(),
    scopes,
    days: days === undefined || days === null ? null : Number(days),
    tierId: tierId === undefined || tierId === null ? null : Number(tierId),
  };
}

// @crudsmith/account/redis: sessions and two-factor challenges in Redis, shared by every
// process. It names ioredis (an optional peer), so it is an entry of its own: the main
// entry's declarations never need ioredis, and an app keeping sessions in the database
// compiles without it.

export { RedisSessionStore } from './session/redis-session-store';
export type { RedisSessionStoreOptions } from './session/redis-session-store';
export { RedisChallengeStore } from './mfa/redis-challenge-store';
export type { RedisChallengeStoreOptions } from './mfa/redis-challenge-store';
export type { RedisClient } from './bounded-redis';

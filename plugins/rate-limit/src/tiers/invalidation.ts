import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../redis-client';
import { withTimeout } from '../stores/store';
import type { RateLimitLogger } from '../logger';

/** Options of RedisInvalidation. */
export interface RedisInvalidationOptions {
  /** Publishes changes (the store's client will do). */
  publisher: RedisClient;
  /** Channel name. Default `crudsmith:rate-limit:invalidate`. */
  channel?: string;
  /** What a change means here: drop the local cache. */
  onInvalidate: () => void;
  logger?: RateLimitLogger;
  /** How long a publish or the first subscribe may take, in ms. Default 1000. */
  timeoutMs?: number;
}

/**
 * Carries "limits changed" between processes over Redis pub/sub (a change
 * applies everywhere within a second). A subscriber needs a connection of its own, so
 * `start` opens a duplicate of the publisher; it queues its SUBSCRIBE until Redis
 * answers and resubscribes after a reconnect.
 */
export class RedisInvalidation {
  readonly channel: string;
  private readonly options: RedisInvalidationOptions;
  private subscriber: RedisClient | undefined;

  constructor(options: RedisInvalidationOptions) {
    this.options = options;
    this.channel = options.channel ?? 'crudsmith:rate-limit:invalidate';
  }

  /** Opens the subscriber connection and listens; resolves once subscribed, or after the timeout (it keeps trying). */
  async start(): Promise<void> {
    if (this.subscriber) return;
    const { publisher } = this.options;
    // On a cluster PUBLISH reaches every node, so one subscription on any node hears it.
    const subscriber = publisher.isCluster
      ? (publisher as Cluster).duplicate([], {
          enableOfflineQueue: true,
          lazyConnect: false,
          redisOptions: { ...(publisher as Cluster).options.redisOptions, maxRetriesPerRequest: null },
        })
      : (publisher as Redis).duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false });
    this.subscriber = subscriber;
    // Changes published while this connection was away are lost: drop the cache on every
    // (re)connect (at startup it is not loaded yet, so that costs nothing).
    subscriber.on('ready', () => this.options.onInvalidate());
    subscriber.on('message', (channel: string) => {
      if (channel === this.channel) this.options.onInvalidate();
    });
    // Without a listener ioredis prints every connection error; the store reports outages.
    subscriber.on('error', () => {});
    try {
      await withTimeout(subscriber.subscribe(this.channel), this.options.timeoutMs ?? 1000, 'Redis SUBSCRIBE');
    } catch (error) {
      this.options.logger?.warn('Rate-limit cache invalidation is not subscribed yet; it will be once Redis answers', {
        error: String(error),
      });
    }
  }

  /** Tells every process (this one included) to drop its cache. Never throws: a failure is logged. */
  async publish(): Promise<void> {
    try {
      await withTimeout(
        this.options.publisher.publish(this.channel, String(Date.now())),
        this.options.timeoutMs ?? 1000,
        'Redis PUBLISH',
      );
    } catch (error) {
      this.options.logger?.warn(
        'Could not publish a rate-limit change; other processes pick it up when their cache expires',
        { error: String(error) },
      );
    }
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    // disconnect, not quit: a QUIT would wait in the offline queue while Redis is down.
    subscriber?.disconnect();
  }
}

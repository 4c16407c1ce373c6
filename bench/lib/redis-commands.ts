import type { Redis } from 'ioredis';

// Counting the commands a Redis client sends, so the rate-limit suite can print and check
// the round trips each limiter costs a request (each of its limiters sends one command
// per request, never pipelined, so a command is a round trip).

/** A count of what the clients passed to `countCommands` have sent. */
export interface CommandCounter {
  count(): number;
}

const counted: CommandCounter[] = [];

/** Counts every command `client` sends from now on. */
export function countCommands(client: Redis): CommandCounter {
  let sent = 0;
  const original = client.sendCommand.bind(client);
  client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    sent++;
    return original(...args);
  }) as Redis['sendCommand'];
  const counter = { count: () => sent };
  counted.push(counter);
  return counter;
}

/** The commands every counted client of this process has sent so far. */
export function redisCommandsSent(): number {
  return counted.reduce((sum, counter) => sum + counter.count(), 0);
}

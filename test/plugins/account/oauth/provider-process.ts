// Starts the mock OpenID Connect provider (mock-provider.mjs) as a process of its own.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A running provider: its issuer URL and the way to stop it. */
export interface ProviderProcess {
  issuer: string;
  stop(): Promise<void>;
}

export async function startProvider(): Promise<ProviderProcess> {
  const child = spawn(process.execPath, [join(__dirname, 'mock-provider.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error('the mock provider exited before it listened');
    }),
  ])) as [string];
  const { issuer } = JSON.parse(first) as { issuer: string };
  return {
    issuer,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

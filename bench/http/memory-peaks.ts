import { readFileSync, writeFileSync } from 'node:fs';
import type { MemoryPeaks } from './protocol';

// The highest resident set and V8 heap a server process reaches while it works (the
// export-memory suite reads them around each export). The heap is sampled every few
// milliseconds; the resident set is also read from the kernel's own high-water mark
// (VmHWM, reset through clear_refs on Linux), which no sample can miss.

const SAMPLE_MS = 5;
let peaks: MemoryPeaks | undefined;
let sampler: NodeJS.Timeout | undefined;

function sample(): void {
  const { rss, heapUsed } = process.memoryUsage();
  if (!peaks) return;
  peaks.rss = Math.max(peaks.rss, rss);
  peaks.heap = Math.max(peaks.heap, heapUsed);
}

/** The kernel's peak resident set of this process since its last reset, in bytes (0 when unknown). */
function kernelPeak(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Collects garbage (when exposed), resets the peaks to what is in use now, and samples from then on. */
export function resetPeaks(): MemoryPeaks {
  (globalThis as { gc?: () => void }).gc?.();
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux, or not allowed: the samples alone give the peak.
  }
  const { rss, heapUsed } = process.memoryUsage();
  peaks = { rss, heap: heapUsed, baseRss: rss, baseHeap: heapUsed };
  sampler ??= setInterval(sample, SAMPLE_MS).unref();
  return { ...peaks };
}

/** The peaks since the last reset. */
export function readPeaks(): MemoryPeaks {
  sample();
  if (!peaks) return resetPeaks();
  return { ...peaks, rss: Math.max(peaks.rss, kernelPeak()) };
}

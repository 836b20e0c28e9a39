// Memory readings (after a collection), the 10 s progress lines, and the live-heap verdict.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MAX_HEAP_GROWTH_MB } from "./settings.js";

// A garbage collection before each memory reading, so that the numbers compare live data, not garbage.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

export type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
export function memory(): Memory {
  gc();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external };
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const showMemory = (m: Memory) => `rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, external ${mb(m.external)}`;

/** Every 10 s: the totals so far and the live heap (after a collection), to see a trend, not one point. */
export function sampleProgress(began: number, totals: () => string) {
  const samples: Memory[] = [];
  const timer = setInterval(() => {
    const m = memory();
    samples.push(m);
    console.log(`  ${Math.round((Date.now() - began) / 1000)} s: ${totals()}, rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}`);
  }, 10_000);
  return { samples, stop: () => clearInterval(timer) };
}

/** Prints memory at start and end and the live-heap verdict; true when the heap was stable. */
export function heapVerdict(start: Memory, end: Memory, samples: Memory[]): boolean {
  console.log(`memory at start: ${showMemory(start)}`);
  console.log(`memory at end:   ${showMemory(end)}`);
  console.log(`change:          rss ${mb(end.rss - start.rss)}, heap used ${mb(end.heapUsed - start.heapUsed)}`);
  // Start-up and the first requests fill caches (compiled code, prepared statements): the trend is judged
  // from the first sample, taken under traffic, to the end.
  const warm = samples[0] ?? start;
  const growth = end.heapUsed - warm.heapUsed;
  const stable = growth <= MAX_HEAP_GROWTH_MB * 1024 * 1024;
  console.log(
    `live heap ${samples[0] ? "after 10 s" : "at start"} ${mb(warm.heapUsed)} → end ${mb(end.heapUsed)}: ` +
      `${stable ? "stable" : "GROWING"} (${mb(growth)}, allowed ${MAX_HEAP_GROWTH_MB} MB)`,
  );
  return stable;
}

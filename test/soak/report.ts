// Memory readings (after a collection), the 10 s progress lines, and the final table, totals and live-heap verdict.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MAX_HEAP_GROWTH_MB } from "./settings.js";
import { errorSamples, p95, stats, totals } from "./stats.js";

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
export function sampleProgress(began: number) {
  const samples: Memory[] = [];
  const timer = setInterval(() => {
    const { count, errors } = totals();
    const m = memory();
    samples.push(m);
    console.log(
      `  ${Math.round((Date.now() - began) / 1000)} s: ${count} requests, ${errors} errors, rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}`,
    );
  }, 10_000);
  return { samples, stop: () => clearInterval(timer) };
}

/** Prints the per-operation table, the totals, memory and the first errors; true when no request failed and the heap was stable. */
export function printReport(elapsed: number, start: Memory, end: Memory, samples: Memory[]): boolean {
  const rows = [...stats.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(...rows.map(([op]) => op.length));
  console.log(
    `\n${"operation".padEnd(width)}  ${"count".padStart(7)}  ${"errors".padStart(6)}  ${"avg ms".padStart(7)}  ${"p95 ms".padStart(7)}  ${"max ms".padStart(7)}`,
  );
  for (const [op, s] of rows) {
    console.log(
      `${op.padEnd(width)}  ${String(s.count).padStart(7)}  ${String(s.errors).padStart(6)}  ${(s.totalMs / s.count).toFixed(1).padStart(7)}  ${p95(s).padStart(7)}  ${s.maxMs.toFixed(0).padStart(7)}`,
    );
  }
  const { count, errors } = totals();
  console.log(`\ntotal: ${count} requests in ${elapsed.toFixed(1)} s (${(count / elapsed).toFixed(0)}/s), errors: ${errors}`);
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
  if (errorSamples.length) console.log(`\nfirst errors:\n  ${errorSamples.join("\n  ")}`);
  return errors === 0 && stable;
}

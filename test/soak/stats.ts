// Per-operation counts, errors and latency buckets of every request the soak sends, and the first error texts.

export type Stat = { count: number; errors: number; totalMs: number; maxMs: number; buckets: number[] };
export const stats = new Map<string, Stat>();
export const errorSamples: string[] = [];
/** Latency buckets in ms: upper bounds, the last one open. */
const BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, Infinity];

export function record(op: string, ms: number, error: string | null) {
  let stat = stats.get(op);
  if (!stat) {
    stat = { count: 0, errors: 0, totalMs: 0, maxMs: 0, buckets: BUCKETS.map(() => 0) };
    stats.set(op, stat);
  }
  stat.count++;
  stat.totalMs += ms;
  stat.maxMs = Math.max(stat.maxMs, ms);
  stat.buckets[BUCKETS.findIndex((b) => ms <= b)]!++;
  if (error) {
    stat.errors++;
    if (errorSamples.length < 20) errorSamples.push(`${op}: ${error}`);
  }
}

export const p95 = (s: Stat) => {
  let seen = 0;
  for (let i = 0; i < BUCKETS.length; i++) {
    seen += s.buckets[i]!;
    if (seen >= s.count * 0.95) return BUCKETS[i] === Infinity ? `>${BUCKETS[i - 1]}` : `≤${BUCKETS[i]}`;
  }
  return "-";
};

export const totals = () =>
  [...stats.values()].reduce((t, s) => ({ count: t.count + s.count, errors: t.errors + s.errors }), { count: 0, errors: 0 });

// The run's summary from its history: requests and outcomes, the faults, and latency per endpoint outside the
// fault windows (a request that overlapped a fault, or started within 2 s of one's heal, is left out).
import type { History, Req } from "./history.js";

/** An endpoint: its method and path with ids and keys made generic. */
const endpoint = (r: Req) =>
  `${r.method} ${r.path
    .replace(/\?.*$/, "")
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ":id")
    .replace(/soak-pro-\d+/g, ":proId")}`;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export function printSummary(h: History) {
  const outcomes = new Map<string, number>();
  for (const r of h.reqs) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  console.log(`\nrequests: ${h.reqs.length} (${[...outcomes].map(([o, n]) => `${o} ${n}`).join(", ")})`);
  console.log(
    `stream events: ${h.streams.filter((s) => s.ev === "event").length} on ${new Set(h.streams.map((s) => s.sid)).size} streams; pushes received: ${h.pushes.length}`,
  );
  const byKind = new Map<string, number>();
  for (const f of h.faults) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
  console.log(`faults by kind: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);

  const quiet = (r: Req) => !h.faults.some((f) => r.start <= f.end + 2000 && r.end >= f.start);
  const latencies = new Map<string, number[]>();
  for (const r of h.reqs) {
    if (!quiet(r) || r.outcome === "refused") continue;
    const key = endpoint(r);
    latencies.set(key, [...(latencies.get(key) ?? []), r.end - r.start]);
  }
  const rows = [...latencies].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(8, ...rows.map(([k]) => k.length));
  console.log(
    `\nlatency outside fault windows\n${"endpoint".padEnd(width)}  ${"count".padStart(6)}  ${"p50 ms".padStart(7)}  ${"p99 ms".padStart(7)}`,
  );
  for (const [key, list] of rows) {
    const sorted = list.sort((a, b) => a - b);
    console.log(
      `${key.padEnd(width)}  ${String(sorted.length).padStart(6)}  ${pct(sorted, 0.5).toFixed(0).padStart(7)}  ${pct(sorted, 0.99).toFixed(0).padStart(7)}`,
    );
  }
}

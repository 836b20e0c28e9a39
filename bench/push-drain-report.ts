// The push-drain report (bench/push-drain.ts): its table and its verdicts.
import { DEFAULT_CONCURRENCY } from "../server/push/sender.js";
import { summarize, type Timing } from "./inprocess.js";
import type { PushDrainResult } from "./push-drain.js";
import type { Verdict } from "./report.js";

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
const median = (values: number[]) => summarize(values).p50;
const timing = (t: Timing) => `${fmt(t.p50)} ms (${t.samples} rounds, max ${fmt(t.max)})`;

function summary(r: PushDrainResult) {
  const product = summarize(r.product.map((p) => p.drainMs));
  const at = (c: number) => summarize(r.direct.filter((d) => d.concurrency === c).map((d) => d.drainMs));
  return { product, direct20: at(20), direct10: at(DEFAULT_CONCURRENCY) };
}

export function pushDrainTable(r: PushDrainResult): string {
  const s = summary(r);
  const sent = r.product.reduce((n, p) => n + p.sent, 0);
  const failed = r.product.reduce((n, p) => n + p.failed, 0) + r.direct.reduce((n, d) => n + d.failed, 0);
  const wrong = r.product.reduce((n, p) => n + p.wrongPayloads, 0) + r.direct.reduce((n, d) => n + d.wrongPayloads, 0);
  const rows: [string, string, string][] = [
    [
      `**product: ${r.deliveries} deliveries, commit → last received** (median)`,
      `**${timing(s.product)}**`,
      `one batch of ${r.shape.users} events through the producer API queues them in one commit; the queue (20 claimed at a time) sends them; per round: ${r.product.map((p) => fmt(p.drainMs)).join(", ")} ms`,
    ],
    [
      "product: commit → every delivery recorded sent (median)",
      `${fmt(median(r.product.map((p) => p.recordedMs)))} ms`,
      `push_deliveries polled every 20 ms; ${sent} sent in all, ${failed} failed; ${wrong} pushes with a wrong payload or repeated (product and direct)`,
    ],
    [
      "product: the batch's POST (100 events, 1,000 deliveries queued)",
      `${fmt(median(r.product.map((p) => p.ingestMs)))} ms`,
      "sent → answered, median",
    ],
    [
      "product: server CPU per delivery",
      `${(median(r.product.map((p) => p.cpuMs)) / r.deliveries).toFixed(3)} ms`,
      `process.cpuUsage, user + system, from before the POST until every delivery was recorded (the POST included), median; the direct sender's: ${(median(r.direct.map((d) => d.cpuMs)) / r.deliveries).toFixed(3)} ms per message`,
    ],
    [
      `**direct web-push at 20 at once** (median)`,
      `**${timing(s.direct20)}**`,
      `sendNotification in a child process, the same ${r.deliveries} messages; first send → last received; per round: ${r.direct
        .filter((d) => d.concurrency === 20)
        .map((d) => fmt(d.drainMs))
        .join(", ")} ms`,
    ],
    [
      `direct web-push at ${DEFAULT_CONCURRENCY} at once (median)`,
      `${timing(s.direct10)}`,
      `DEFAULT_CONCURRENCY of server/push/sender.ts; per round: ${r.direct
        .filter((d) => d.concurrency === DEFAULT_CONCURRENCY)
        .map((d) => fmt(d.drainMs))
        .join(", ")} ms`,
    ],
    [
      "**product ÷ direct** (medians)",
      `**${fmt(s.product.p50 / s.direct20.p50, 2)}× / ${fmt(s.product.p50 / s.direct10.p50, 2)}×**`,
      `against direct at 20 / at ${DEFAULT_CONCURRENCY}`,
    ],
    [
      `the queue's concurrency: ${r.concurrency.deliveries} deliveries answered after ${r.concurrency.delayMs} ms`,
      `waves of ${r.concurrency.waves.join(", ")}`,
      `drained in ${fmt(r.concurrency.drainMs)} ms: ${fmt(r.concurrency.averageInFlight, 1)} in flight on average (${r.concurrency.deliveries} × ${r.concurrency.delayMs} ms ÷ the time); a wave is the arrivals until a gap of ${r.concurrency.delayMs / 2} ms`,
    ],
  ];
  return ["| measurement | value | what it is |", "|---|---:|---|", ...rows.map((c) => `| ${c.join(" | ")} |`)].join("\n");
}

export function pushDrainVerdicts(r: PushDrainResult): Verdict[] {
  const s = summary(r);
  const ratio = s.product.p50 / s.direct20.p50;
  const failed = r.product.reduce((n, p) => n + p.failed, 0) + r.direct.reduce((n, d) => n + d.failed, 0);
  const wrong = r.product.reduce((n, p) => n + p.wrongPayloads, 0) + r.direct.reduce((n, d) => n + d.wrongPayloads, 0);
  return [
    {
      target: `push queue drains ${r.deliveries} deliveries in ≤ 2× the time of direct web-push sends at the same concurrency`,
      met: ratio <= 2 && failed === 0,
      detail: `median ${fmt(s.product.p50)} ms vs ${fmt(s.direct20.p50)} ms direct at 20 = ${fmt(ratio, 2)}× (direct at ${DEFAULT_CONCURRENCY}: ${fmt(s.direct10.p50)} ms, ${fmt(s.product.p50 / s.direct10.p50, 2)}×)`,
    },
    {
      target: "every delivery sent once, with its own payload",
      met: failed === 0 && wrong === 0 && r.product.every((p) => p.sent === r.deliveries && p.received === r.deliveries),
      detail: `${r.product.map((p) => `${p.sent} sent / ${p.received} received`).join(", ")}; ${failed} failed; ${wrong} wrong or repeated`,
    },
  ];
}

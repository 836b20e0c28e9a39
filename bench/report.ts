// The results table, the verdict on each target, and the markdown written to bench/results/.
import type { ActivationResult, PushResult } from "./inprocess.js";
import type { LoadResult } from "./load.js";

export type Row = LoadResult & {
  scale: string;
  scenario: string;
  target: string;
  /**
   * saturated: every connection sends its next request as soon as the answer arrives (throughput);
   * paced: a fixed total rate well below capacity (latency without queueing).
   */
  mode: "saturated" | "paced";
  ratio: number | null;
  read: boolean;
};

export type Verdict = { target: string; met: boolean; detail: string };

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

export function table(rows: Row[]): string {
  const header = ["rows", "scenario", "load", "target", "req/s", "p50 ms", "p99 ms", "errors", "× floor", "server CPU ms/req"];
  const body = rows.map((r) => [
    r.scale,
    r.scenario,
    r.mode === "paced" ? `paced ${Math.round(r.rps / 10) * 10}/s` : "saturated",
    r.target,
    fmt(r.rps, 0),
    fmt(r.p50, 1),
    fmt(r.p99, 1),
    String(r.errors),
    r.ratio === null ? "" : fmt(r.ratio, 2),
    r.cpuMsPerRequest === null ? "-" : fmt(r.cpuMsPerRequest, 2),
  ]);
  const numeric = (i: number) => i >= 4;
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

const written = (w: { historyRows: number; auditEvents: number }) => `${fmt(w.historyRows, 0)} / ${fmt(w.auditEvents, 0)}`;

export function inProcessTable(activation: ActivationResult | null, push: PushResult | null, cohortSize: number): string {
  const lines = ["| measurement | samples | p50 ms | p99 ms | max ms | notes |", "|---|---:|---:|---:|---:|---|"];
  if (activation) {
    const counts = [...new Set(activation.statements)].join(", ");
    lines.push(
      `| cohort activation, ${cohortSize} pros (product, in-process) | ${activation.product.samples} | ${fmt(activation.product.p50)} | ${fmt(activation.product.p99)} | ${fmt(activation.product.max)} | ${counts} SQL statements inside the transaction |`,
      `| cohort activation, ${cohortSize} pros (floor: the same 2 statements by hand) | ${activation.floor.samples} | ${fmt(activation.floor.p50)} | ${fmt(activation.floor.p99)} | ${fmt(activation.floor.max)} | product ${fmt(activation.product.p50 / activation.floor.p50, 2)}× the floor (p50) |`,
      `| cohort activation, ${cohortSize} pros (the floor's earlier single statement) | ${activation.floorBefore.samples} | ${fmt(activation.floorBefore.p50)} | ${fmt(activation.floorBefore.p99)} | ${fmt(activation.floorBefore.max)} | does less: no statuses locked, no history, no audit event |`,
      `| rows written per activation: history rows / audit events | | | | | product ${written(activation.written.product)}, floor ${written(activation.written.floor)}, earlier floor ${written(activation.written.floorBefore)} |`,
    );
  }
  if (push) {
    lines.push(
      `| push fan-out to ${push.subscriptions} subscriptions (POST /api/notifications/test/push) | ${push.timing.samples} | ${fmt(push.timing.p50)} | ${fmt(push.timing.p99)} | ${fmt(push.timing.max)} | ${push.delivered} delivered, ${push.failed} failed |`,
    );
  }
  return lines.join("\n");
}

export function verdicts(
  rows: Row[],
  bigScale: string,
  smallScale: string | null,
  activation: ActivationResult | null,
  push: PushResult | null,
): Verdict[] {
  const out: Verdict[] = [];
  const find = (scale: string, scenario: string, target: string, mode: Row["mode"]) =>
    rows.find((r) => r.scale === scale && r.scenario === scenario && r.target === target && r.mode === mode);

  for (const target of ["product REST", "product tRPC"]) {
    const reads = rows.filter((r) => r.read && r.mode === "saturated" && r.target === target && r.ratio !== null);
    if (!reads.length) continue;
    const below = reads.filter((r) => r.ratio! < 0.8);
    out.push({
      target: `${target} ≥ 0.8× floor req/s on every read scenario`,
      met: below.length === 0,
      detail: below.length
        ? `below on ${below.map((r) => `${r.scenario}@${r.scale} (${fmt(r.ratio!, 2)}×)`).join(", ")}`
        : `lowest ${fmt(Math.min(...reads.map((r) => r.ratio!)), 2)}×`,
    });
  }

  for (const target of ["product REST", "product tRPC", "floor"]) {
    for (const mode of ["saturated", "paced"] as const) {
      const big = find(bigScale, "list", target, mode);
      if (!big) continue;
      out.push({
        target: `${target}: GET list p99 ≤ 15 ms at ${bigScale} rows (${mode})`,
        met: big.p99 <= 15,
        detail: `p99 ${fmt(big.p99)} ms, p50 ${fmt(big.p50)} ms at ${fmt(big.rps, 0)} req/s`,
      });
      const small = smallScale ? find(smallScale, "list", target, mode) : undefined;
      if (small) {
        const ratio = big.p99 / small.p99;
        out.push({
          target: `${target}: GET list p99 at ${bigScale} rows ≤ 1.5× its p99 at ${smallScale} rows (${mode})`,
          met: ratio <= 1.5,
          detail: `${fmt(big.p99)} ms vs ${fmt(small.p99)} ms = ${fmt(ratio, 2)}× (p50 ${fmt(big.p50)} vs ${fmt(small.p50)} ms)`,
        });
      }
    }
  }

  if (activation) {
    const maxStatements = Math.max(...activation.statements);
    out.push({
      // The cohort locked; then the pros' statuses locked, flags with history, the cohort, the event in one.
      target: "cohort activation: ≤ 2 SQL statements inside its transaction",
      met: maxStatements <= 2,
      detail: `${maxStatements} statements`,
    });
    out.push({
      target: "cohort activation of 500 pros, p50 ≤ 2× the floor (the same statements by hand)",
      met: activation.product.p50 <= 2 * activation.floor.p50,
      detail: `p50 ${fmt(activation.product.p50)} ms vs ${fmt(activation.floor.p50)} ms = ${fmt(activation.product.p50 / activation.floor.p50, 2)}× (the floor's earlier statement, which wrote no history or audit event: ${fmt(activation.floorBefore.p50)} ms)`,
    });
    out.push({
      target: "cohort activation of 500 pros ≤ 50 ms",
      met: activation.product.p99 <= 50,
      detail: `p50 ${fmt(activation.product.p50)} ms, p99 ${fmt(activation.product.p99)} ms, max ${fmt(activation.product.max)} ms`,
    });
  }
  if (push) {
    out.push({
      target: `push fan-out to ${push.subscriptions} subscriptions ≤ 1 s`,
      met: push.timing.max <= 1000 && push.failed === 0,
      detail: `max ${fmt(push.timing.max)} ms, p50 ${fmt(push.timing.p50)} ms, ${push.failed} failed`,
    });
  }
  return out;
}

export function verdictLines(list: Verdict[]): string {
  return list.map((v) => `- ${v.met ? "MET   " : "MISSED"} ${v.target}: ${v.detail}`).join("\n");
}

// The results table, the verdict on each target, and the markdown written to bench/results/.

import { type Baseline, baselineRow } from "./baseline.js";
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
  /** req/s ÷ the bare ceiling's in the same run (bench/bare.ts), on the from-memory reads; absent in older results. */
  bareRatio?: number | null;
  read: boolean;
  /** req/s of each round, when the scenario ran in rounds against bare (BenchOptions.rounds); the row is the median round's. */
  roundRps?: number[];
  /** Against bare, the share of the product's hot reads answered from memory over every round; absent in older results. */
  fromMemory?: number;
};

/** The middle value (the lower of the two middle ones for an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Two sides measured in the same rounds: each round's ratio, and their median. */
export function roundRatios(a: readonly number[], b: readonly number[]): { ratio: number; rounds: number[] } {
  const rounds = a.map((rps, i) => rps / b[i]!);
  return { ratio: median(rounds), rounds };
}

/**
 * a's req/s ÷ b's: the median of the ratios of rounds run back to back when both ran in rounds, else the
 * ratio of their one window each. With the rounds' ratios, to show the spread.
 */
export function pairedRatio(a: Row, b: Row): { ratio: number; rounds: number[] } {
  if (a.roundRps && b.roundRps && a.roundRps.length === b.roundRps.length) return roundRatios(a.roundRps, b.roundRps);
  return { ratio: a.rps / b.rps, rounds: [] };
}

/** A ratio and what it was made of: the rounds' own ratios and the median req/s of each side, or the two windows. */
export const ratioDetail = (ratio: number, rounds: number[], a: Row, b: Row) =>
  rounds.length > 1
    ? `${fmt(ratio, 2)}×, the median of ${rounds.length} rounds' ratios (${rounds.map((r) => fmt(r, 2)).join(", ")}); median req/s ${fmt(a.rps, 0)} vs ${fmt(b.rps, 0)}`
    : `${fmt(a.rps, 0)} vs ${fmt(b.rps, 0)} req/s = ${fmt(ratio, 2)}×`;

export type Verdict = { target: string; met: boolean; detail: string };

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

export function table(rows: Row[], baseline: Baseline | null = null): string {
  const header = [
    "rows",
    "scenario",
    "load",
    "target",
    "req/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "× floor",
    "× bare",
    "server CPU ms/req",
    "load gen CPU ms/req",
    "machine busy",
  ];
  if (baseline) header.push(`${baseline.name}: req/s`, "× floor", "CPU ms/req");
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
    r.bareRatio === null || r.bareRatio === undefined ? "" : fmt(r.bareRatio, 2),
    r.cpuMsPerRequest === null ? "-" : fmt(r.cpuMsPerRequest, 3),
    r.clientCpuMsPerRequest === undefined ? "-" : fmt(r.clientCpuMsPerRequest, 2),
    r.machineBusy === null || r.machineBusy === undefined ? "-" : `${fmt(r.machineBusy * 100, 0)} %`,
    ...(baseline ? beforeCells(baselineRow(baseline, r)) : []),
  ]);
  const numeric = (i: number) => i >= 4;
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

const beforeCells = (b: Row | undefined) =>
  b ? [fmt(b.rps, 0), b.ratio === null ? "" : fmt(b.ratio, 2), b.cpuMsPerRequest === null ? "-" : fmt(b.cpuMsPerRequest, 2)] : ["", "", ""];

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
      // The floor runs the product's own statements by hand (bench/floor-activation.ts).
      target: `cohort activation of 500 pros: p50 ≤ 2× the floor's (issue J)`,
      met: activation.product.p50 <= 2 * activation.floor.p50,
      detail: `p50 ${fmt(activation.product.p50)} ms vs floor ${fmt(activation.floor.p50)} ms = ${fmt(activation.product.p50 / activation.floor.p50, 2)}× (the floor's earlier statement, which locked no statuses and wrote no history or audit event: ${fmt(activation.floorBefore.p50)} ms, ${fmt(activation.product.p50 / activation.floorBefore.p50, 2)}×)`,
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

/** The hot paths of issue J, each held to the floor on its own. */
export const HOT_SCENARIOS = ["list", "list-category", "unread-count", "pro-status", "mark-read"] as const;

/** Issue J's targets for the load runs at the big scale (saturated). */
export function loadVerdicts(rows: Row[], bigScale: string, baseline: Baseline | null): Verdict[] {
  const out: Verdict[] = [];
  const at = (scenario: string, target: string) =>
    rows.find((r) => r.scale === bigScale && r.scenario === scenario && r.target === target && r.mode === "saturated");
  const each = (target: string, title: string, value: (product: Row, floor: Row) => number, ok: (v: number) => boolean, unit = "×") => {
    const cells = HOT_SCENARIOS.flatMap((scenario) => {
      const product = at(scenario, target);
      const floor = at(scenario, "floor");
      return product && floor ? [{ scenario, v: value(product, floor) }] : [];
    });
    if (!cells.length) return;
    const missed = cells.filter((c) => !ok(c.v));
    out.push({
      target: `${title} at ${bigScale} rows (saturated)`,
      met: missed.length === 0,
      detail: cells.map((c) => `${c.scenario} ${fmt(c.v, 2)}${unit}${ok(c.v) ? "" : " (missed)"}`).join(", "),
    });
  };
  each(
    "product REST",
    "REST req/s ≥ 0.8× the floor's on each hot path",
    (p) => p.ratio ?? 0,
    (v) => v >= 0.8,
  );
  each(
    "product tRPC",
    "tRPC req/s ≥ 0.7× the floor's on each hot path",
    (p) => p.ratio ?? 0,
    (v) => v >= 0.7,
  );
  each(
    "product REST",
    "REST server CPU ms/req ≤ 1.5× the floor's on each hot path",
    (p, f) => (p.cpuMsPerRequest ?? Infinity) / (f.cpuMsPerRequest ?? NaN),
    (v) => v <= 1.5,
  );

  const search = at("list-search", "product REST");
  if (search) {
    const before = baselineRow(baseline, search);
    out.push({
      target: `search ?search=refund at ${bigScale} rows: REST req/s ≥ 10× ${baseline?.name ?? "the run before"}`,
      met: before ? search.rps >= 10 * before.rps : false,
      detail: before
        ? `${fmt(search.rps, 0)} req/s vs ${fmt(before.rps, 0)} = ${fmt(search.rps / before.rps, 1)}×`
        : "no earlier run to compare with",
    });
    out.push({
      target: `search ?search=refund at ${bigScale} rows: REST p99 ≤ 50 ms saturated`,
      met: search.p99 <= 50,
      detail: `p99 ${fmt(search.p99)} ms, p50 ${fmt(search.p50)} ms at ${fmt(search.rps, 0)} req/s`,
    });
  }
  return out;
}

/**
 * Issue N's targets for OFREP at the big scale (saturated): an evaluation serves ≥ 0.85× the floor's req/s
 * (its twin on the floor: one key lookup by hash, one status read), and a bulk evaluation answered 304 costs
 * less server CPU than a full evaluation. The floor's pro-status lookup (a session instead of a key, the same
 * status read) is shown beside it as the reference it was compared with before the floor had an OFREP twin.
 */
export function ofrepVerdicts(rows: Row[], bigScale: string): Verdict[] {
  const out: Verdict[] = [];
  const at = (scenario: string, target: string) =>
    rows.find((r) => r.scale === bigScale && r.scenario === scenario && r.target === target && r.mode === "saturated");
  const cpu = (r: Row | undefined) => (r?.cpuMsPerRequest === null || r?.cpuMsPerRequest === undefined ? "-" : fmt(r.cpuMsPerRequest, 3));
  const evaluation = at("ofrep-eval", "product OFREP");
  const evaluationFloor = at("ofrep-eval", "floor");
  const proStatusFloor = at("pro-status", "floor");
  if (evaluation && evaluationFloor) {
    const ratio = evaluation.rps / evaluationFloor.rps;
    const reference = proStatusFloor
      ? `; the floor's pro-status lookup ${fmt(proStatusFloor.rps, 0)} req/s: ${fmt(evaluation.rps / proStatusFloor.rps, 2)}×`
      : "";
    out.push({
      target: `OFREP evaluation req/s ≥ 0.85× the floor's at ${bigScale} rows (saturated)`,
      met: ratio >= 0.85 && evaluation.errors === 0,
      detail: `${fmt(evaluation.rps, 0)} vs ${fmt(evaluationFloor.rps, 0)} req/s (the floor's OFREP twin) = ${fmt(ratio, 2)}×${reference}; ${evaluation.errors} errors`,
    });
  }
  const notModified = at("ofrep-bulk-304", "product OFREP");
  if (notModified && evaluation) {
    const full = at("ofrep-bulk", "product OFREP");
    const cheaper = (other: Row) =>
      notModified.cpuMsPerRequest !== null && other.cpuMsPerRequest !== null && notModified.cpuMsPerRequest < other.cpuMsPerRequest;
    out.push({
      target: `OFREP bulk 304 cheaper than a full evaluation (product server CPU ms/req) at ${bigScale} rows`,
      met: cheaper(evaluation) && (!full || cheaper(full)) && notModified.errors === 0,
      detail: `304 ${cpu(notModified)} ms/req (${fmt(notModified.rps, 0)} req/s, ${notModified.errors} not 304) vs evaluation ${cpu(evaluation)} ms/req${full ? `, bulk 200 ${cpu(full)} ms/req` : ""}`,
    });
  }
  return out;
}

/**
 * Issue J: the badge and the list's counts come from the user's notification_counts rows (at most one per
 * category), never from counting notifications. With the bench's 100 users that table is a few pages,
 * so PostgreSQL may read it whole instead of through its primary key; it holds no notifications either way.
 */
export function countsVerdict(explained: { label: string; indexes: string[]; seqScans: string[] }[], bigScale: string): Verdict | null {
  const unread = explained.find((e) => e.label === "product: notifications.unreadCount");
  const lists = explained.filter((e) => e.label.startsWith("product: notifications.list") && !e.label.includes("search"));
  if (!unread || !lists.length) return null;
  const readsCounts = (e: { indexes: string[]; seqScans: string[] }) =>
    e.indexes.includes("notification_counts_pkey") || e.seqScans.includes("notification_counts");
  const countsNotifications = (e: { indexes: string[]; seqScans: string[] }) =>
    e.indexes.includes("notifications_unread_idx") || e.seqScans.includes("notifications");
  const unreadOk = readsCounts(unread) && !unread.indexes.some((i) => i.startsWith("notifications_")) && !countsNotifications(unread);
  const listsOk = lists.every((e) => readsCounts(e) && !countsNotifications(e));
  const describe = (e: { label: string; indexes: string[]; seqScans: string[] }) =>
    `${e.label.replace("product: ", "")}: ${[...e.indexes, ...e.seqScans.map((t) => `seq scan ${t}`)].join(", ")}`;
  return {
    target: `unread count and the list's two counts read notification_counts, not notifications (O(1) rows per user) at ${bigScale} rows`,
    met: unreadOk && listsOk,
    detail: [unread, ...lists].map(describe).join("; "),
  };
}

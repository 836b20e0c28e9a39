// Issue AE's verdicts: the reads served from memory against the bare ceiling, tRPC against REST, the list
// against the floor, and every scenario against AE's table of ratios to the floor.
import { fmt, pairedRatio, type Row, ratioDetail, type Verdict } from "./report.js";

/** Reads of which this share or more came from memory count as reads from memory (a read made at a stall). */
const FROM_MEMORY = 0.99;
/** Whether the row measured reads from memory; a row from before the bench counted them passes. */
const fromMemory = (r: Row) => r.fromMemory === undefined || r.fromMemory >= FROM_MEMORY;
const memoryShare = (r: Row, whose = "its") =>
  r.fromMemory === undefined ? "" : `; ${fmt(r.fromMemory * 100, 2)} % of ${whose} hot reads from memory`;

/**
 * Issue AE's targets: the reads served from memory against the bare ceiling (Fastify alone, bench/bare.ts) in
 * the same run, tRPC against REST on each, and the list against the floor on both doors. The floor stays the
 * yardstick for what touches the database; for what does not, the framework's own ceiling is.
 */
export function bareVerdicts(rows: Row[], bigScale: string): Verdict[] {
  const out: Verdict[] = [];
  const at = (scenario: string, target: string) =>
    rows.find((r) => r.scale === bigScale && r.scenario === scenario && r.target === target && r.mode === "saturated");
  // The kernel's part beside the total: socket work and waking the load generator, about the same for any server.
  const cpu = (r: Row) =>
    r.cpuMsPerRequest === null
      ? "-"
      : `${fmt(r.cpuMsPerRequest * 1000, 0)} µs${r.kernelMsPerRequest == null ? "" : ` (kernel ${fmt(r.kernelMsPerRequest * 1000, 0)})`}`;
  const ceilings: [scenario: string, target: string, min: number][] = [
    ["ofrep-eval", "product OFREP", 0.7],
    ["ofrep-bulk-304", "product OFREP", 0.7],
    ["pro-status", "product REST", 0.7],
    ["unread-count", "product REST", 0.6],
  ];
  for (const [scenario, target, min] of ceilings) {
    const product = at(scenario, target);
    const bare = at(scenario, "bare");
    if (!product || !bare) continue;
    const { ratio, rounds } = pairedRatio(product, bare);
    out.push({
      target: `${scenario} (${target}) req/s ≥ ${min}× bare at ${bigScale} rows (saturated)`,
      met: ratio >= min && product.errors === 0 && fromMemory(product),
      detail: `${ratioDetail(ratio, rounds, product, bare)}; server CPU ${cpu(product)} vs bare ${cpu(bare)} a request${product.ratio === null ? "" : `; ${fmt(product.ratio, 2)}× the floor`}${memoryShare(product)}`,
    });
  }
  for (const scenario of ["pro-status", "unread-count"]) {
    const rest = at(scenario, "product REST");
    const trpc = at(scenario, "product tRPC");
    if (!rest || !trpc) continue;
    const { ratio, rounds } = pairedRatio(trpc, rest);
    out.push({
      target: `${scenario}: tRPC req/s ≥ 0.85× REST's at ${bigScale} rows (saturated)`,
      met: ratio >= 0.85 && fromMemory(trpc) && fromMemory(rest),
      detail: `${ratioDetail(ratio, rounds, trpc, rest)}; server CPU ${cpu(trpc)} vs ${cpu(rest)}${memoryShare(trpc, "tRPC's")}${memoryShare(rest, "REST's")}`,
    });
  }
  const list = ["product REST", "product tRPC"].flatMap((target) => {
    const r = at("list", target);
    return r && r.ratio !== null ? [{ target, ratio: r.ratio }] : [];
  });
  if (list.length) {
    out.push({
      target: `list req/s ≥ 1.0× the floor's on both doors at ${bigScale} rows (saturated)`,
      met: list.length === 2 && list.every((l) => l.ratio >= 1),
      detail: list.map((l) => `${l.target} ${fmt(l.ratio, 2)}×`).join(", "),
    });
  }
  return out;
}

/**
 * Issue AE's table: each scenario's req/s ÷ the floor's on the day AE was filed (W's last full run, 1M rows
 * unless named, saturated). AE asks that nothing falls under it; `list` at 1M has its own target above.
 */
const AE_TABLE: [scenario: string, target: string, ratio: number, small?: true][] = [
  ["pro-status", "product REST", 1.56],
  ["pro-status", "product tRPC", 1.26],
  ["unread-count", "product REST", 1.61],
  ["unread-count", "product tRPC", 1.37],
  ["list", "product REST", 1.23, true],
  ["list", "product tRPC", 0.82, true],
  ["list-category", "product REST", 1.23],
  ["list-category", "product tRPC", 0.93],
  ["list-search", "product REST", 1.24],
  ["list-search", "product tRPC", 1.28],
  ["mark-read", "product REST", 1.07],
  ["mark-read", "product tRPC", 0.9],
  ["ofrep-eval", "product OFREP", 1.91],
  ["ofrep-bulk", "product OFREP", 1.61],
  ["ofrep-bulk-304", "product OFREP", 1.8],
];

/** One verdict: every scenario of AE's table measured in this run at or above its ratio there, the misses named. */
export function tableVerdict(rows: Row[], bigScale: string, smallScale: string | null): Verdict | null {
  const measured = AE_TABLE.flatMap(([scenario, target, min, small]) => {
    const scale = small ? smallScale : bigScale;
    const r = rows.find((x) => x.scale === scale && x.scenario === scenario && x.target === target && x.mode === "saturated");
    return r && r.ratio !== null
      ? [{ name: `${scenario}${small ? ` at ${scale}` : ""} ${target.replace("product ", "")}`, ratio: r.ratio, min }]
      : [];
  });
  if (!measured.length) return null;
  const missed = measured.filter((m) => m.ratio < m.min);
  const show = (m: (typeof measured)[number]) => `${m.name} ${fmt(m.ratio, 2)} (table ${fmt(m.min, 2)})`;
  return {
    target: `every scenario at or above its ratio to the floor in AE's table (${measured.length} measured, the median of rounds where run in rounds)`,
    met: !missed.length,
    detail: missed.length
      ? `under: ${missed.map(show).join(", ")}; at or above: ${measured
          .filter((m) => m.ratio >= m.min)
          .map(show)
          .join(", ")}`
      : measured.map(show).join(", "),
  };
}

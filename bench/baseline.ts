// The run the numbers are compared with: bench/results/before-j.json, the full run committed before issue J
// (BENCHMARKS.md, "Run of 2026-11-23"). The table prints its req/s and ratio beside each new row, and the
// search target is "10× that run".
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Row } from "./report.js";

export type Baseline = { name: string; rows: Row[] };

export const BASELINE_FILE = fileURLToPath(new URL("results/before-j.json", import.meta.url));

export function loadBaseline(file = BASELINE_FILE): Baseline | null {
  if (!existsSync(file)) return null;
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { rows?: Row[] };
  return { name: "before J", rows: parsed.rows ?? [] };
}

/** The same scale, scenario, target and load in the baseline run. */
export const baselineRow = (baseline: Baseline | null, row: Pick<Row, "scale" | "scenario" | "target" | "mode">) =>
  baseline?.rows.find((b) => b.scale === row.scale && b.scenario === row.scenario && b.target === row.target && b.mode === row.mode);

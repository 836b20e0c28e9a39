// A statement the service sent, run again under EXPLAIN ANALYZE on either driver, and what its plan read:
// the rows each table gave up (kept or filtered out) and the indexes it went through. Counting rows read
// instead of timing them lets a test say "this costs the same for a big inbox as for a small one" exactly.
import type { PGlite } from "@electric-sql/pglite";
import type { Statement, TestDb } from "./db.js";

type PlanNode = {
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
};

export type PlanReads = {
  /** Rows read per table: returned by its scans plus those they filtered out, over every loop. */
  rows: Record<string, number>;
  indexes: string[];
};

async function explainJson(db: TestDb, { query, params }: Statement): Promise<PlanNode> {
  const text = `explain (analyze, format json) ${query}`;
  const rows =
    db.driver === "postgres"
      ? await db.client.unsafe(text, params as never[])
      : (await (db.db as unknown as { $client: PGlite }).$client.query<Record<string, unknown>>(text, params)).rows;
  const plan = rows[0]!["QUERY PLAN"];
  return (typeof plan === "string" ? JSON.parse(plan) : plan)[0].Plan as PlanNode;
}

export async function planReads(db: TestDb, statement: Statement): Promise<PlanReads> {
  const reads: PlanReads = { rows: {}, indexes: [] };
  const walk = (node: PlanNode) => {
    if (node["Index Name"]) reads.indexes.push(node["Index Name"]);
    const table = node["Relation Name"];
    if (table) {
      const perLoop = (node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
      reads.rows[table] = (reads.rows[table] ?? 0) + perLoop * (node["Actual Loops"] ?? 1);
    }
    node.Plans?.forEach(walk);
  };
  walk(await explainJson(db, statement));
  return reads;
}

// Every row of the service's own tables as JSON, taken in one statement so a test can afford one before and
// one after each request: a refused request (4xx) must leave them exactly as they were.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";

/** The tables a request of the REST surface can write. */
export const GUARDED_TABLES = [
  "restriction_cohorts",
  "gate_checks",
  "pro_restriction_status",
  "notifications",
  "notification_counts",
  "push_subscriptions",
  "audit_events",
  "pro_flag_changes",
  "api_keys",
  "notification_preferences",
  "notification_events",
  "push_deliveries",
] as const;

export type GuardedTable = (typeof GUARDED_TABLES)[number];
export type TableSnapshot = Record<GuardedTable, unknown[]>;

/**
 * Each table's rows, every column included (timestamps too, so a no-op UPDATE that only touches
 * updated_at still shows), in a stable order that does not depend on any one column.
 */
export async function snapshotTables(db: Db): Promise<TableSnapshot> {
  const parts = GUARDED_TABLES.map(
    (table) =>
      sql`${table}::text, (select coalesce(json_agg(to_jsonb(r) order by to_jsonb(r)::text), '[]'::json) from ${sql.identifier(table)} r)`,
  );
  const result = (await db.execute(sql`select json_build_object(${sql.join(parts, sql`, `)})::text as snapshot`)) as unknown;
  // postgres.js answers an array of rows, PGlite an object with `rows`.
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { snapshot: string }[];
  return JSON.parse(rows[0]!.snapshot) as TableSnapshot;
}

// Every row of every table, as text: for tests that assert a secret is stored nowhere (API key secrets,
// session tokens), whichever table a future change might copy it into.
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { rowsOf } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";

/** Every row of every table the service has, each as JSON text, under its table's name. */
export async function everyRow(db: Db): Promise<string> {
  const result = (await db.execute(sql`
    select string_agg(t.table_schema || '.' || t.table_name, ',') as tables
    from information_schema.tables t
    where t.table_type = 'BASE TABLE' and t.table_schema not in ('pg_catalog', 'information_schema')`)) as unknown;
  const tables = rowsOf<Record<string, string>>(result)[0]!.tables!.split(",");
  expect(tables).toContain("public.sessions");
  const dumps: string[] = [];
  for (const table of tables) {
    const [schema, name] = table.split(".") as [string, string];
    const dump = await db.execute(
      sql`select coalesce(string_agg(row_to_json(r)::text, E'\n'), '') as rows from ${sql.identifier(schema)}.${sql.identifier(name)} r`,
    );
    dumps.push(`${table}\n${rowsOf<Record<string, string>>(dump)[0]!.rows}`);
  }
  return dumps.join("\n");
}

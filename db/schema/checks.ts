// CHECK constraints built from the same lists the code uses, so the database and the types cannot disagree.
import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/** `column in ('a', 'b', …)` for a fixed list of plain words (never user input). */
export function isOneOf(column: AnyPgColumn, values: readonly string[]): SQL {
  if (values.some((v) => !/^[a-z_.-]+$/.test(v))) throw new Error(`not a plain word list: ${values.join(", ")}`);
  return sql`${column} in (${sql.raw(values.map((v) => `'${v}'`).join(", "))})`;
}

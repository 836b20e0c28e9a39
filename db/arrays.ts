// A whole array as ONE statement parameter, the same on both drivers. postgres.js (with fetch_types off, see
// client.ts) cannot name an array's type, and a parameter per element makes big statements slow to build:
// so the array travels as PostgreSQL's own array literal, a text value, cast where it is used.
import { type SQL, sql } from "drizzle-orm";

const quote = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** `{"a","b",NULL}`: every element quoted, so commas, braces, quotes and the word NULL stay text; null is NULL. */
export const arrayLiteral = (values: readonly (string | boolean | null)[]) =>
  `{${values.map((v) => (v === null ? "NULL" : typeof v === "boolean" ? (v ? "t" : "f") : quote(v))).join(",")}}`;

export const textArray = (values: readonly (string | null)[]): SQL => sql`${arrayLiteral(values)}::text[]`;

/** The rows a raw statement answered: postgres.js gives an array of rows, PGlite an object holding them. */
export const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

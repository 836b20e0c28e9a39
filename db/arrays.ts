// A whole array as ONE statement parameter, the same on both drivers. postgres.js (with fetch_types off, see
// client.ts) cannot name an array's type, and a parameter per element makes big statements slow to build:
// so the array travels as PostgreSQL's own array literal, a text value, cast where it is used.
import { type SQL, sql } from "drizzle-orm";

const quote = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** `{"a","b"}`: every element quoted, so commas, braces, quotes and the word NULL stay text. */
export const arrayLiteral = (values: readonly (string | boolean)[]) =>
  `{${values.map((v) => (typeof v === "boolean" ? (v ? "t" : "f") : quote(v))).join(",")}}`;

export const textArray = (values: readonly string[]): SQL => sql`${arrayLiteral(values)}::text[]`;

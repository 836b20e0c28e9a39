// The tRPC transformer: superjson, so Dates (and Maps, Sets, undefined, …) reach the typed client as they
// were sent. superjson's serializer walks an answer value by value, keeping a path and a map entry for each:
// a third of the CPU of a tRPC page of 30 notifications (issue W, BENCHMARKS.md). Nearly every answer is
// JSON plus Dates, so those are checked here in one plain walk that notes where the Dates are, and written
// exactly as superjson writes them (test/unit/trpc-transformer.test.ts compares the two). Anything else (a
// Map, undefined, NaN, a class instance, an object met twice, a key superjson refuses) goes to superjson.
import type { CombinedDataTransformer } from "@trpc/server";
import superjson from "superjson";
import { deserializeInput } from "./superjson-meta.js";

type Answer = { json: unknown; meta?: { values: Record<string, ["Date"]>; v: 1 } };

/** What superjson does to a key in a path: `.` and `\` escaped. */
const escapeKey = (key: string) => key.replace(/\\/g, "\\\\").replace(/\./g, "\\.");

/** Keys superjson refuses to walk (prototype pollution); such an answer fails there, as it always did. */
const REFUSED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

type Dates = Record<string, ["Date"]>;
/** What plain() found: not JSON plus Dates (false), a Date itself, nothing to note (null), or the Dates below. */
type Found = false | typeof A_DATE | null | Dates;
const A_DATE = Symbol("date");

/**
 * Whether `value` is JSON plus valid Dates, without an object met twice, and where its Dates are, by path
 * from `value`. Each level collects its children's paths in an object of its own, as superjson's walker
 * does: an object puts integer-like keys ("1") before the others, so the same Dates come out in the same
 * order (a flat record wrote `.0.0.0` before `.0.1`, which superjson writes the other way round).
 */
function plain(value: unknown, seen: Set<object>): Found {
  switch (typeof value) {
    case "string":
    case "boolean":
      return null;
    case "number":
      // NaN, ±Infinity and -0 are annotated by superjson.
      return Number.isFinite(value) && !Object.is(value, -0) ? null : false;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return null;
  if (seen.has(value)) return false;
  seen.add(value);
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Date.prototype) return Number.isNaN((value as Date).getTime()) ? false : A_DATE;
  const keys = Object.keys(value);
  if (Array.isArray(value)) {
    if (keys.length !== value.length) return false;
  } else if (prototype !== Object.prototype && prototype !== null) {
    return false;
  }
  let dates: Dates | null = null;
  for (const key of keys) {
    if (REFUSED_KEYS.has(key)) return false;
    const found = plain((value as Record<string, unknown>)[key], seen);
    if (found === false) return false;
    if (found === null) continue;
    dates ??= {};
    if (found === A_DATE) dates[escapeKey(key)] = ["Date"];
    else for (const path in found) dates[`${escapeKey(key)}.${path}`] = found[path]!;
  }
  return dates;
}

/**
 * superjson's serialize, for what tRPC then writes with JSON.stringify: the answer itself as `json` when it
 * is JSON plus Dates (JSON.stringify writes a Date as superjson does, its toISOString). A Date at the root
 * goes to superjson, which notes it differently.
 */
export function serializeAnswer(value: unknown): Answer {
  if (typeof value !== "object" || value === null) return superjson.serialize(value) as Answer;
  const found = plain(value, new Set());
  if (found === false || found === A_DATE) return superjson.serialize(value) as Answer;
  return found ? { json: value, meta: { values: found, v: 1 } } : { json: value };
}

export const transformer: CombinedDataTransformer = {
  // Inputs come from anyone signed in: their meta is checked before superjson walks it (superjson-meta.ts).
  input: { serialize: (value) => superjson.serialize(value), deserialize: deserializeInput },
  output: { serialize: serializeAnswer, deserialize: (answer) => superjson.deserialize(answer) },
};

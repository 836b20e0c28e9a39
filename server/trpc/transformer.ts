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

/**
 * Whether `value` is JSON plus valid Dates, without an object met twice; notes each Date's path (the keys
 * from the answer's root, in `path`) in `dates`.
 */
function plain(value: unknown, path: string[], dates: Record<string, ["Date"]>, seen: Set<object>): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      // NaN, ±Infinity and -0 are annotated by superjson.
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (seen.has(value)) return false;
  seen.add(value);
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Date.prototype) {
    if (Number.isNaN((value as Date).getTime()) || path.length === 0) return false;
    dates[path.map(escapeKey).join(".")] = ["Date"];
    return true;
  }
  const keys = Object.keys(value);
  if (Array.isArray(value)) {
    if (keys.length !== value.length) return false;
  } else if (prototype !== Object.prototype && prototype !== null) {
    return false;
  }
  for (const key of keys) {
    if (REFUSED_KEYS.has(key)) return false;
    path.push(key);
    const ok = plain((value as Record<string, unknown>)[key], path, dates, seen);
    path.pop();
    if (!ok) return false;
  }
  return true;
}

/**
 * superjson's serialize, for what tRPC then writes with JSON.stringify: the answer itself as `json` when it
 * is JSON plus Dates (JSON.stringify writes a Date as superjson does, its toISOString).
 */
export function serializeAnswer(value: unknown): Answer {
  const dates: Record<string, ["Date"]> = {};
  if (typeof value !== "object" || value === null || !plain(value, [], dates, new Set())) return superjson.serialize(value) as Answer;
  for (const _ in dates) return { json: value, meta: { values: dates, v: 1 } };
  return { json: value };
}

export const transformer: CombinedDataTransformer = {
  // Inputs come from anyone signed in: their meta is checked before superjson walks it (superjson-meta.ts).
  input: { serialize: (value) => superjson.serialize(value), deserialize: deserializeInput },
  output: { serialize: serializeAnswer, deserialize: (answer) => superjson.deserialize(answer) },
};

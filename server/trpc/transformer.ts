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
const escapeKey = (key: string) => (key.includes(".") || key.includes("\\") ? key.replace(/\\/g, "\\\\").replace(/\./g, "\\.") : key);

/** Keys superjson refuses to walk (prototype pollution); such an answer fails there, as it always did. */
const refused = (key: string) => key === "__proto__" || key === "constructor" || key === "prototype";

type Dates = Record<string, ["Date"]>;

/** Whether an object's key is an array index ("0", "12"), which a JS object lists before its other keys. */
const isIndex = (key: string) => key === String(Number(key) >>> 0) && key !== "4294967295";

/** Whether `value` is JSON (finite numbers, no -0: superjson annotates those) as far as a leaf goes. */
function plainLeaf(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      return value === null;
    default:
      return false;
  }
}

const isDate = (value: unknown): value is Date =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Date.prototype;

/** A Date as superjson would note it: valid, and not met before (superjson would share it). */
function dateNoted(date: Date, seen: Set<object>): boolean {
  if (seen.has(date) || Number.isNaN(date.getTime())) return false;
  seen.add(date);
  return true;
}

/**
 * Whether `container` (an object or array) holds only JSON and valid Dates, without an object met twice;
 * adds each Date's path to `dates`, `prefix` before it (a list: paths as an object's keys cost ~1 µs each
 * to add, a third of a tRPC page of notifications). The order is superjson's: its walker collects
 * each level's paths in an object of its own, where a Date directly under an index key ("1") comes before
 * everything else of that level, deeper paths ("0.0") included; then the level's other paths, in key order.
 */
function plain(container: object, prefix: string, dates: string[], seen: Set<object>): boolean {
  if (seen.has(container)) return false;
  seen.add(container);
  const keys = Object.keys(container);
  const isArray = Array.isArray(container);
  if (isArray) {
    if (keys.length !== (container as unknown[]).length) return false;
  } else {
    const prototype = Object.getPrototypeOf(container);
    if (prototype !== Object.prototype && prototype !== null) return false;
  }
  const record = container as Record<string, unknown>;
  // An object lists its index keys first: those are the first `indexKeys` of `keys`.
  let indexKeys = 0;
  while (indexKeys < keys.length && (isArray || isIndex(keys[indexKeys]!))) {
    const key = keys[indexKeys]!;
    const child = record[key];
    if (isDate(child)) {
      if (!dateNoted(child, seen)) return false;
      dates.push(prefix + key);
    }
    indexKeys++;
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (refused(key)) return false;
    const child = record[key];
    if (plainLeaf(child)) continue;
    if (typeof child !== "object" || child === null) return false;
    if (isDate(child)) {
      if (i < indexKeys) continue;
      if (!dateNoted(child, seen)) return false;
      dates.push(prefix + escapeKey(key));
    } else if (!plain(child, `${prefix + escapeKey(key)}.`, dates, seen)) {
      return false;
    }
  }
  return true;
}

/**
 * The paths superjson notes the Dates of `value` (an object or array, not a Date) at, in its order; null
 * when `value` is not JSON plus valid Dates, or meets an object twice: superjson must write that.
 */
export function datePaths(value: object): string[] | null {
  const dates: string[] = [];
  return plain(value, "", dates, new Set()) ? dates : null;
}

/** Whether superjson writes `value` as it is, with at most Dates noted (datePaths). */
export const mayBePlain = (value: unknown): value is object => typeof value === "object" && value !== null && !isDate(value);

/**
 * superjson's serialize, for what tRPC then writes with JSON.stringify: the answer itself as `json` when it
 * is JSON plus Dates (JSON.stringify writes a Date as superjson does, its toISOString). A Date at the root
 * goes to superjson, which notes it differently.
 */
export function serializeAnswer(value: unknown): Answer {
  const dates = mayBePlain(value) ? datePaths(value) : null;
  if (!dates) return superjson.serialize(value) as Answer;
  if (!dates.length) return { json: value };
  const values: Dates = {};
  for (const path of dates) values[path] = ["Date"];
  return { json: value, meta: { values, v: 1 } };
}

export const transformer: CombinedDataTransformer = {
  // Inputs come from anyone signed in: their meta is checked before superjson walks it (superjson-meta.ts).
  input: { serialize: (value) => superjson.serialize(value), deserialize: deserializeInput },
  output: { serialize: serializeAnswer, deserialize: (answer) => superjson.deserialize(answer) },
};

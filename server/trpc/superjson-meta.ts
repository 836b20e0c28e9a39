// A tRPC input's superjson `meta`, checked before superjson reads it. superjson trusts its shape: a 1 MB
// string as `meta.values` made it walk the string character by character into itself, ~2 s of blocked event
// loop per request for any signed-in caller, answered "Maximum call stack size exceeded" (issue X). Only the
// shapes superjson writes, within bounds no input of this service comes near, reach it.
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { MAX_JSON_DEPTH } from "../http/json-depth.js";

export const META_LIMITS = {
  /** Annotated values plus referential-equality paths in one input. */
  entries: 1000,
  /** Characters in one path (`items.3.createdAt`). */
  pathChars: 1000,
  /** Segments from the input's root to an annotated value: a Map's entry takes two per level. */
  pathSegments: 2 * MAX_JSON_DEPTH,
} as const;

/** superjson's annotations of one value that the service's inputs can use; class, symbol and custom need a registry it does not have. */
const KNOWN_ANNOTATIONS = new Set(["undefined", "bigint", "Date", "Error", "regexp", "set", "map", "number", "URL"]);
/** Path segments superjson refuses (prototype pollution). */
const REFUSED_SEGMENTS = new Set(["__proto__", "prototype", "constructor"]);

const malformed = (why: string) => new TRPCError({ code: "BAD_REQUEST", message: `Malformed superjson meta: ${why}` });

const isRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** Checks the meta of one tRPC input; throws 400 BAD_REQUEST naming what is wrong. */
export function checkMeta(meta: unknown): void {
  if (meta === undefined) return;
  if (!isRecord(meta)) throw malformed("must be an object");
  for (const key of Object.keys(meta)) {
    if (key !== "values" && key !== "referentialEqualities" && key !== "v") throw malformed(`unknown field "${key.slice(0, 40)}"`);
  }
  if (meta.v !== undefined && meta.v !== 1) throw malformed("v must be 1");
  let entries = 0;
  const count = () => {
    if (++entries > META_LIMITS.entries) throw malformed(`more than ${META_LIMITS.entries} entries`);
  };

  /** The number of segments in a path as superjson's parsePath splits it (`\.` is a dot within a segment). */
  const segmentsOf = (path: unknown): number => {
    if (typeof path !== "string") throw malformed("a path must be a string");
    if (path.length > META_LIMITS.pathChars) throw malformed(`a path is longer than ${META_LIMITS.pathChars} characters`);
    let segments = 1;
    let segment = "";
    for (let i = 0; i < path.length; i++) {
      const c = path[i];
      if (c === "\\") {
        const next = path[++i];
        if (next !== "\\" && next !== ".") throw malformed("a path has an invalid escape");
        segment += next;
      } else if (c === ".") {
        if (REFUSED_SEGMENTS.has(segment)) throw malformed(`a path may not hold "${segment}"`);
        segments++;
        segment = "";
      } else {
        segment += c;
      }
    }
    if (REFUSED_SEGMENTS.has(segment)) throw malformed(`a path may not hold "${segment}"`);
    return segments;
  };

  const annotation = (value: unknown) => {
    if (typeof value !== "string" || !KNOWN_ANNOTATIONS.has(value)) throw malformed("unknown value annotation");
  };

  /** A tree of meta.values: `[annotation]`, `[annotation, {path: tree}]`, or `{path: tree}`; `depth` segments above it. */
  const tree = (node: unknown, depth: number): void => {
    if (Array.isArray(node)) {
      if (node.length < 1 || node.length > 2) throw malformed("an annotation must be [type] or [type, children]");
      count();
      annotation(node[0]);
      if (node[1] !== undefined) children(node[1], depth);
    } else if (isRecord(node)) {
      children(node, depth);
    } else {
      throw malformed("values must be an object of paths or [type]");
    }
  };
  const children = (node: unknown, depth: number) => {
    if (!isRecord(node)) throw malformed("an annotation's children must be an object of paths");
    for (const [path, child] of Object.entries(node)) {
      count();
      const below = depth + segmentsOf(path);
      if (below > META_LIMITS.pathSegments) throw malformed(`a path is deeper than ${META_LIMITS.pathSegments} segments`);
      tree(child, below);
    }
  };
  if (meta.values !== undefined) tree(meta.values, 0);

  const paths = (list: unknown) => {
    if (!Array.isArray(list)) throw malformed("referentialEqualities must list paths");
    for (const path of list) {
      count();
      if (segmentsOf(path) > META_LIMITS.pathSegments) throw malformed(`a path is deeper than ${META_LIMITS.pathSegments} segments`);
    }
  };
  const pathsByPath = (record: unknown) => {
    if (!isRecord(record)) throw malformed("referentialEqualities must map paths to paths");
    for (const [path, list] of Object.entries(record)) {
      paths([path]);
      paths(list);
    }
  };
  const equalities = meta.referentialEqualities;
  if (equalities === undefined) return;
  if (Array.isArray(equalities)) {
    if (equalities.length < 1 || equalities.length > 2) throw malformed("referentialEqualities must be [rootPaths] or [rootPaths, paths]");
    paths(equalities[0]);
    if (equalities[1] !== undefined) pathsByPath(equalities[1]);
  } else {
    pathsByPath(equalities);
  }
}

/**
 * superjson's deserialize of a tRPC input, its meta checked first. Referential equalities are checked and
 * then not applied: an input is a tree of values, and superjson sends each shared object in full at every
 * place it occurs, so the value is the same without them, while applying them could build cycles or
 * values that grow exponentially as they are walked.
 */
export function deserializeInput(payload: unknown): unknown {
  if (payload === null) throw malformed("the input must be an object {json, meta}");
  // Not an envelope at all (a bare number): superjson reads no json from it, as it always did.
  if (typeof payload !== "object") return superjson.deserialize(payload as never);
  const { json, meta } = payload as { json?: unknown; meta?: unknown };
  checkMeta(meta);
  const values = (meta as { values?: unknown } | undefined)?.values;
  try {
    // In place, as superjson's own parse does: both tRPC's handler and the door (door.ts) pass a value
    // they have just parsed from JSON and read once, so superjson's deep copy of it was work for nothing.
    return superjson.deserialize(
      { json: json as never, meta: values === undefined ? undefined : { values: values as never, v: 1 } },
      { inPlace: true },
    );
  } catch (cause) {
    // A well-formed meta whose annotation the value cannot take (`map` on an object, `bigint` on an array).
    throw new TRPCError({ code: "BAD_REQUEST", message: "Malformed superjson meta: a value does not fit its annotation", cause });
  }
}

// The text of a tRPC door's success answer, `{"result":{"data":{"json":…,"meta":…}}}`, written by a
// serializer compiled from the procedure's output schema (fast-json-stringify, as the REST door's envelope)
// instead of JSON.stringify, which took ~2 µs of pro-status's ~33 over tRPC (BENCHMARKS.md, issue AE). The
// text parses to what JSON.stringify writes: keys outside the schema are kept, and anything the compiled
// serializer cannot write (a value the schema does not allow) is written by JSON.stringify after all.
import build from "fast-json-stringify";
import { answerSerializerSchemas } from "../rest/serializers.js";
import type { ProcedurePath } from "../routers/index.js";

type JsonSchema = Record<string, unknown>;
type Writer = (answer: unknown) => string;

const typesOf = (schema: JsonSchema): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/**
 * The schema with every object open to keys it does not name: fast-json-stringify leaves such keys out,
 * where the answer tRPC's own handler writes has them.
 */
export function keepingUnknownKeys(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(keepingUnknownKeys);
  if (typeof schema !== "object" || schema === null) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, keepingUnknownKeys(v)])) as JsonSchema;
  const closed = out.additionalProperties === undefined || out.additionalProperties === false;
  if (closed && (typesOf(out).includes("object") || out.properties !== undefined)) out.additionalProperties = true;
  return out;
}

/** superjson's meta as the transformer writes it (server/trpc/transformer.ts); anything else in it is kept. */
const META = {
  type: "object",
  properties: { values: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } }, v: { type: "number" } },
  additionalProperties: true,
};

const trpcSuccess = (json: unknown) => ({
  type: "object",
  required: ["result"],
  properties: {
    result: {
      type: "object",
      required: ["data"],
      properties: { data: { type: "object", required: ["json"], properties: { json: keepingUnknownKeys(json), meta: META } } },
    },
  },
});

/** A procedure's compiled writer, made at its first answer; null for one without a contract. */
const writers = new Map<string, Writer | null>();

function writerOf(path: string): Writer | null {
  let writer = writers.get(path);
  if (writer === undefined) {
    let schema: unknown;
    try {
      schema = answerSerializerSchemas([path as ProcedurePath]).get(path);
    } catch {
      schema = undefined;
    }
    writer = schema === undefined ? null : (build(trpcSuccess(schema) as Parameters<typeof build>[0]) as Writer);
    writers.set(path, writer);
  }
  return writer;
}

/**
 * `{"result":{"data":answer}}` as text. `answer` is the transformer's output for `data`; only when it is the
 * answer itself as `json` (an object of JSON and Dates, as nearly every answer is) does the compiled writer
 * run: superjson's own output for anything else does not fit the procedure's schema.
 */
export function successText(path: string, data: unknown, answer: { json?: unknown }): string {
  const body = { result: { data: answer } };
  const writer = typeof data === "object" && data !== null && answer.json === data ? writerOf(path) : null;
  if (writer) {
    try {
      return writer(body);
    } catch {
      // A value its schema does not allow (a required key missing): written as tRPC's handler writes it.
    }
  }
  return JSON.stringify(body);
}

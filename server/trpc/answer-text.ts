// The text of a tRPC door's success answer, `{"result":{"data":{"json":…,"meta":…}}}`: the answer written by a
// serializer compiled from the procedure's output schema (fast-json-stringify, as the REST door's envelope)
// instead of JSON.stringify, which took ~2 µs of pro-status's ~33 over tRPC, and superjson's note of its Dates
// written from their paths instead of built as an object first, a third of a page of notifications
// (BENCHMARKS.md, issue AE). The text parses to what JSON.stringify writes from the transformer's output:
// keys outside the schema are kept, and anything else goes back to the door, which writes it that way.
import build from "fast-json-stringify";
import { answerSerializerSchemas, type JsonSchema, rewriteSchema } from "../rest/serializers.js";
import type { ProcedurePath } from "../routers/index.js";
import { datePaths, mayBePlain } from "./transformer.js";

type Writer = (answer: unknown) => string;

const typesOf = (schema: JsonSchema): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/**
 * The schema with every object open to keys it does not name: fast-json-stringify leaves such keys out,
 * where the answer tRPC's own handler writes has them.
 */
export const keepingUnknownKeys = (schema: unknown) =>
  rewriteSchema(schema, (node) => {
    const closed = node.additionalProperties === undefined || node.additionalProperties === false;
    return closed && (typesOf(node).includes("object") || node.properties !== undefined) ? { ...node, additionalProperties: true } : node;
  });

/** A path as a JSON string; JSON.stringify only for the rare path that needs escaping (surrogates included). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON must escape.
const quoted = (text: string) => (/["\\\u0000-\u001f\ud800-\udfff]/.test(text) ? JSON.stringify(text) : `"${text}"`);

/** A procedure's compiled writer of its answer, made at its first answer; null for one without a contract. */
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
    writer = schema === undefined ? null : (build(keepingUnknownKeys(schema) as Parameters<typeof build>[0]) as Writer);
    writers.set(path, writer);
  }
  return writer;
}

/**
 * `{"result":{"data":{"json":…,"meta":…}}}` for `data` from the procedure at `path`, as JSON.stringify writes
 * it from the transformer's output (transformer.ts), with superjson's note of each Date written straight from
 * its path; null when the door must write it that way itself: an answer that is not an object of JSON and
 * Dates, a procedure without a contract, or a value its schema does not allow.
 */
export function successText(path: string, data: unknown): string | null {
  if (!mayBePlain(data)) return null;
  const writer = writerOf(path);
  const dates = writer && datePaths(data);
  if (!writer || !dates) return null;
  let json: string;
  try {
    json = writer(data);
  } catch {
    return null;
  }
  if (!dates.length) return `{"result":{"data":{"json":${json}}}}`;
  let values = "";
  for (const date of dates) values += `${values ? "," : ""}${quoted(date)}:["Date"]`;
  return `{"result":{"data":{"json":${json},"meta":{"values":{${values}},"v":1}}}}`;
}

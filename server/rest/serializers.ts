// The REST answers' serializers: each route's success envelope rendered as JSON Schema from its procedure's
// output schema (server/rest/openapi.ts), which Fastify compiles with fast-json-stringify instead of calling
// JSON.stringify on every answer. Errors keep JSON.stringify: they are few and small.
import { z } from "zod";
import type { ProcedurePath } from "../routers/index.js";
import { outputJsonSchemas, successEnvelope } from "./openapi.js";
import type { RestRoute } from "./routes.js";

export type JsonSchema = Record<string, unknown>;

/** `schema` with each of its objects, innermost first, replaced by what `rewrite` makes of it. */
export function rewriteSchema(schema: unknown, rewrite: (node: JsonSchema) => unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewriteSchema(item, rewrite));
  if (typeof schema !== "object" || schema === null) return schema;
  return rewrite(Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, rewriteSchema(v, rewrite)])));
}

/**
 * `anyOf: [X, {type: "null"}]` (zod's nullable) as `X` with `null` among its types: fast-json-stringify
 * checks a list of types with typeof, where anyOf would make it run a validator on every value.
 */
const nullableAsTypeList = (schema: unknown) =>
  rewriteSchema(schema, (node) => {
    const anyOf = node.anyOf as JsonSchema[] | undefined;
    if (anyOf?.length === 2 && anyOf[1]?.type === "null" && typeof anyOf[0]?.type === "string") {
      const { anyOf: _, ...rest } = node;
      return { ...rest, ...anyOf[0], type: [anyOf[0].type, "null"] };
    }
    return node;
  });

/**
 * Each procedure's answer as JSON Schema for fast-json-stringify: inline (an empty registry: no shared
 * components, no descriptions), nullable as a type list. The REST envelope and the tRPC door's answers
 * (server/trpc/answer-text.ts) are both written from it.
 */
export function answerSerializerSchemas(procedures: readonly ProcedurePath[]): Map<string, JsonSchema> {
  const { byProcedure } = outputJsonSchemas(
    procedures.map((procedure) => ({ procedure })),
    { metadata: z.registry() },
  );
  return new Map(Object.entries(byProcedure).map(([procedure, data]) => [procedure, nullableAsTypeList(data) as JsonSchema]));
}

/** The success schema Fastify serializes each route's answers with, by procedure. */
export function successSerializerSchemas(routes: readonly RestRoute[]): Map<string, JsonSchema> {
  const answers = answerSerializerSchemas(routes.map((route) => route.procedure));
  return new Map([...answers].map(([procedure, data]) => [procedure, successEnvelope(data)]));
}

// Holds every REST answer a test app gives to the service's own OpenAPI document (/openapi.json): the status
// must be one the operation declares, the body must match that answer's schema (Ajv, JSON Schema 2020-12 as
// OpenAPI 3.1 uses it) and its required headers must be there. createTestApp installs it on every app, so
// each integration suite checks the document with whatever it sends; a payload that drifts from the
// document fails the test that produced it (useTestApp checks after each test, app.close for the rest).
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";

type Json = Record<string, unknown>;
type Operation = { operationId: string; responses: Record<string, Json> };
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components: Json };

export type ContractViolation = { operation: string; status: number; problem: string };

const DOC_ID = "openapi.json";

export type ContractChecker = {
  /** Checks one answer; null when it is not a documented REST operation's (auth, tRPC, console, health). */
  check(answer: {
    method: string;
    route: string | undefined;
    status: number;
    headers: Record<string, unknown>;
    body: string;
  }): ContractViolation[] | null;
  /** The operations answered so far, as `operationId status`. */
  seen: Set<string>;
};

/** A checker of answers against one OpenAPI 3.1 document. */
export function contractChecker(document: OpenApiDocument): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document as object, DOC_ID);
  const validators = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

  /** A response object, following one $ref into components.responses. */
  const responseAt = (response: Json): { at: string; value: Json } => {
    const ref = response.$ref;
    if (typeof ref !== "string") return { at: "", value: response };
    const name = ref.replace("#/components/responses/", "");
    return { at: pointer("components", "responses", name), value: (document.components.responses as Record<string, Json>)[name]! };
  };

  const seen = new Set<string>();
  return {
    seen,
    check({ method, route, status, headers, body }) {
      if (!route) return null;
      const path = route.replace(/:(\w+)/g, "{$1}");
      const operation = document.paths[path]?.[method.toLowerCase()];
      if (!operation) return null;
      const name = `${method} ${path}`;
      seen.add(`${operation.operationId} ${status}`);
      const declared = operation.responses[String(status)];
      if (!declared) return [{ operation: name, status, problem: `status ${status} is not declared` }];
      const { at, value: response } = responseAt(declared);
      const where = at || pointer("paths", path, method.toLowerCase(), "responses", String(status));
      const problems: string[] = [];
      for (const [header, spec] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
        if (spec.required === true && headers[header.toLowerCase()] === undefined) problems.push(`header ${header} is missing`);
      }
      // JSON unless the answer says otherwise (the audit log's key is text/plain): its schema is under its type.
      const media = String(headers["content-type"] ?? "application/json")
        .split(";")[0]!
        .trim();
      const isJson = media === "application/json";
      const key = `${where}/content/${pointer(media)}/schema`;
      let validate = validators.get(key);
      if (!validate) {
        validate = ajv.getSchema(`${DOC_ID}#/${key}`);
        if (!validate) throw new Error(`no schema at ${key}`);
        validators.set(key, validate);
      }
      let json: unknown = isJson ? undefined : body;
      try {
        if (isJson) json = JSON.parse(body);
      } catch {
        problems.push("the body is not JSON");
      }
      if (json !== undefined && !validate(json)) {
        for (const error of validate.errors ?? [])
          problems.push(`${error.instancePath || "(body)"} ${error.message} ${JSON.stringify(error.params)}`);
      }
      return problems.map((problem) => ({ operation: name, status, problem }));
    },
  };
}

/** Installs a checker on an app before it is ready: each answer is checked as it is sent. */
export function checkAnswers(
  app: FastifyInstance,
  document: () => OpenApiDocument,
): { violations: ContractViolation[]; checker: () => ContractChecker } {
  const violations: ContractViolation[] = [];
  let checker: ContractChecker | undefined;
  app.addHook("onSend", async (request, reply, payload) => {
    if (typeof payload !== "string") return payload;
    checker ??= contractChecker(document());
    const found = checker.check({
      method: request.method,
      route: request.routeOptions.url,
      status: reply.statusCode,
      headers: reply.getHeaders(),
      body: payload,
    });
    if (found) violations.push(...found);
    return payload;
  });
  return { violations, checker: () => (checker ??= contractChecker(document())) };
}

// What REST and TypeScript tools make of /openapi.json: Redocly's recommended lint, openapi-typescript's
// types, exact payloads and the bounds the service enforces, and the checker (test/helpers/contract-check.ts)
// that holds every suite's answers to the document, shown failing on a document that drifted.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { restRoutes } from "../../server/rest/routes.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { contractChecker, type OpenApiDocument } from "../helpers/contract-check.js";

// biome-ignore lint/suspicious/noExplicitAny: the parsed document, walked field by field as the assertions go
type Json = Record<string, any>;

describe("the OpenAPI document, as tools read it", () => {
  const t = useTestApp();
  const served = async (): Promise<Json> => (await t().app.inject({ method: "GET", url: "/openapi.json" })).json();

  it("passes Redocly's recommended ruleset with no error; the warnings kept are info-license and the contract's ambiguous paths", async () => {
    const doc = await served();
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "/openapi.json", config });
    const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`).filter((p) => !p.includes("no-ambiguous-paths"));
    // The contract fixes every path these name. Each pair differs in method or is told apart by the router's
    // preference for static segments: a pro named "change-requests" or "cohorts" is unreachable by those
    // paths and goes through the query form, /api/admin/pro-restriction?proId= (issue AD.9), which adds no
    // ambiguity; a notification named "events" is never made (notification ids are UUIDs).
    const ambiguous = problems.filter((p) => p.ruleId === "no-ambiguous-paths").map((p) => p.message.match(/`[^`]+` and `[^`]+`/)![0]);
    expect(ambiguous.sort()).toEqual(
      [
        "`/api/notifications/{id}/read` and `/api/notifications/events/{eventId}`",
        "`/api/admin/restriction/change-requests/{id}` and `/api/admin/restriction/{proId}/history`",
        "`/api/admin/restriction/change-requests/{id}` and `/api/admin/restriction/{proId}/change-requests`",
        "`/api/admin/restriction/change-requests/{id}` and `/api/admin/restriction/{proId}/activate`",
        "`/api/admin/restriction/change-requests/{id}` and `/api/admin/restriction/{proId}/rollback`",
      ].sort(),
    );
    // The service is not published under a licence: naming one in the document would be untrue.
    expect(found).toEqual(["warn info-license: Info object should contain `license` field."]);
  });

  it("gives openapi-typescript a typed payload for every operation: no `data: unknown`", async () => {
    const doc = await served();
    const types = astToString(await openapiTS(doc as never));
    const untyped = types.split("\n").filter((line) => /^\s*data\??: unknown;/.test(line));
    expect(untyped).toEqual([]);
    // Every success answer's data is a named shape or an inline object, never the bare envelope of old.
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      // better-auth's answers are its own bodies, no envelope (test/integration/openapi-auth.test.ts).
      if (path.startsWith("/api/auth/")) continue;
      for (const [method, op] of Object.entries(ops)) {
        const [code, success] = Object.entries(op.responses as Record<string, Json>).find(([code]) => code.startsWith("2"))!;
        // A 204 has no body to type (POST /api/notifications/receipts).
        if (code === "204") {
          expect(success.content).toBeUndefined();
          continue;
        }
        // The audit log's export (NDJSON lines) and verifier key (text) are no envelopes: their schema is the line, the text.
        const json = success.content["application/json"];
        if (!json) {
          expect({ operation: `${method} ${path}`, media: Object.keys(success.content) }).toEqual({
            operation: `${method} ${path}`,
            media: [path.endsWith("/export") ? "application/x-ndjson" : "text/plain"],
          });
          continue;
        }
        const data = json.schema.properties.data;
        expect({ operation: `${method} ${path}`, typed: Object.keys(data).some((k) => ["$ref", "type", "anyOf"].includes(k)) }).toEqual({
          operation: `${method} ${path}`,
          typed: true,
        });
      }
    }
    expect(types).toContain('"restriction.getPro"');
  });

  it("states the bounds the service enforces and the leniency it allows", async () => {
    const doc = await served();
    const create = doc.paths["/api/admin/restriction/cohorts"].post.requestBody.content["application/json"].schema;
    // The producer API is documented beside the table, with its key scheme.
    expect(doc.paths["/api/notifications/events"].post.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(create.properties.proIds).toMatchObject({
      minItems: 1,
      maxItems: 500,
      uniqueItems: true,
      items: { minLength: 1, pattern: "\\S" },
    });
    const testInApp = doc.paths["/api/notifications/test/in-app"].post.requestBody.content["application/json"].schema;
    expect(testInApp.properties.title).toMatchObject({ minLength: 1, pattern: "\\S", maxLength: 200 });
    const list = doc.paths["/api/notifications"].get.parameters as Json[];
    // The spec's lenient paging: ?page=abc is page 1, so any text is a valid page.
    for (const name of ["page", "limit"]) expect(list.find((p) => p.name === name)!.schema.type).toEqual(["number", "string"]);
    const auditLimit = (doc.paths["/api/admin/audit"].get.parameters as Json[]).find((p) => p.name === "limit")!;
    expect(auditLimit.schema.type).toBe("integer");
    expect(doc.components.responses.E429.headers["Retry-After"]).toMatchObject({ required: true });
    expect(doc.components.responses.E400.headers).toHaveProperty("Idempotent-Replayed");
    expect(doc.servers).toEqual([expect.objectContaining({ url: expect.any(String) })]);
    expect(doc.tags.every((tag: Json) => typeof tag.description === "string")).toBe(true);
  });

  it("the answers checker catches a payload that drifted from the document (shown on a tampered copy)", async () => {
    const admin = await t().signUp({ admin: true });
    const res = await t().app.inject({
      method: "POST",
      url: "/api/admin/restriction/cohorts",
      headers: admin.headers,
      payload: { cohortNumber: uniqueCohortNumber(), proIds: ["pro-drift"] },
    });
    const answer = {
      method: "POST",
      route: "/api/admin/restriction/cohorts",
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
    };
    const doc = (await served()) as OpenApiDocument & Json;
    expect(contractChecker(doc).check(answer)).toEqual([]);

    // As if the service had renamed a field, or the document had never listed it.
    const tampered: Json = structuredClone(doc);
    const cohort = tampered.components.schemas.Cohort;
    cohort.properties.number = cohort.properties.cohortNumber;
    delete cohort.properties.cohortNumber;
    cohort.required = cohort.required.map((f: string) => (f === "cohortNumber" ? "number" : f));
    expect(contractChecker(tampered as OpenApiDocument).check(answer)).toEqual([
      expect.objectContaining({ problem: expect.stringContaining("must have required property 'number'") }),
      expect.objectContaining({ problem: expect.stringContaining("must NOT have additional properties") }),
    ]);
    // An answer with a status the operation does not declare.
    expect(contractChecker(doc).check({ ...answer, status: 418 })).toEqual([
      { operation: "POST /api/admin/restriction/cohorts", status: 418, problem: "status 418 is not declared" },
    ]);
  });

  it("covers the table: every REST route has a success answer with a schema", async () => {
    const doc = await served();
    const missing = restRoutes.filter((route) => {
      const op = doc.paths[route.path.replace(/:(\w+)/g, "{$1}")][route.method.toLowerCase()];
      return !op.responses[String(route.status ?? 200)].content["application/json"].schema.properties.data;
    });
    expect(missing).toEqual([]);
  });
});

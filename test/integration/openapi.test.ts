import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { auditLogPaths } from "../../server/rest/openapi-audit-log.js";
import { authOpenApi } from "../../server/rest/openapi-auth.js";
import { restRoutes } from "../../server/rest/routes.js";
import { useTestApp } from "../helpers/app.js";

describe("API reference", () => {
  const t = useTestApp();

  it("serves a valid OpenAPI 3.1 document listing every route of the REST table", async () => {
    const res = await t().app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const table = restRoutes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    // The producer API takes a key, not a session, and receipts take neither: no procedures, documented beside the table.
    const producer = ["POST /api/notifications/events", "GET /api/notifications/events/{eventId}", "POST /api/notifications/receipts"];
    // better-auth's sign-up, sign-in, get-session and sign-out (server/rest/openapi-auth.ts; its admin paths answer 404).
    const auth = Object.entries(authOpenApi().paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(auth.length).toBe(4);
    // The audit log's export (a key or a session, streamed) and its verifier key (anyone, text).
    const auditLog = Object.keys(auditLogPaths()).map((path) => `GET ${path}`);
    expect(auditLog).toEqual(["GET /api/admin/audit/export", "GET /.well-known/audit-log-key"]);
    expect(documented.sort()).toEqual([...table, ...producer, ...auth, ...auditLog].sort());
  });

  it("names the service's own version, package.json's, not a number of its own (issue AD.6)", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const doc = (await t().app.inject({ method: "GET", url: "/openapi.json" })).json();
    expect(doc.info.version).toBe(version);
  });

  it("describes inputs, success statuses, errors and the bearer scheme from the route table and schemas", async () => {
    const doc = (await t().app.inject({ method: "GET", url: "/openapi.json" })).json();
    const create = doc.paths["/api/admin/restriction/cohorts"].post;
    expect(create.responses["201"]).toBeDefined();
    expect(create.requestBody.content["application/json"].schema).toMatchObject({
      required: ["cohortNumber", "proIds"],
      properties: { proIds: { type: "array", minItems: 1, maxItems: 500 } },
    });
    const activate = doc.paths["/api/admin/restriction/cohorts/{id}/activate"].post;
    expect(activate.parameters).toEqual([
      expect.objectContaining({ name: "id", in: "path", required: true, schema: expect.objectContaining({ type: "string" }) }),
      expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }),
    ]);
    expect(activate.requestBody).toBeUndefined();
    expect(activate.responses["400"].$ref).toBe("#/components/responses/E400");
    const list = doc.paths["/api/notifications"].get;
    expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
      "query:category",
      "query:limit",
      "query:page",
      "query:search",
    ]);
    expect(doc.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
  });

  it("documents the optional Idempotency-Key header, its 422 and Idempotent-Replayed on every write, and on no read", async () => {
    const doc = (await t().app.inject({ method: "GET", url: "/openapi.json" })).json();
    type Operation = {
      parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    const seen = { writes: 0, reads: 0 };
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const header = op.parameters?.find((p) => p.in === "header" && p.name === "Idempotency-Key");
        // The producer API is safe to retry by its eventIds (docs/producers.md#sending-notifications-from-a-service).
        // better-auth's paths take no Idempotency-Key either (server/http/idempotency-key.ts), nor do receipts,
        // where a repeat changes nothing by itself (docs/api.md#delivery-receipts).
        if (path === "/api/notifications/events" || path === "/api/notifications/receipts" || path.startsWith("/api/auth/")) {
          expect({ where, header }).toEqual({ where });
          continue;
        }
        const success = Object.entries(op.responses).find(([code]) => code.startsWith("2"))![1];
        if (method === "get") {
          seen.reads++;
          expect({ where, header, e422: op.responses["422"], replayed: success.headers }).toEqual({ where });
          continue;
        }
        seen.writes++;
        expect({ where, header }).toEqual({
          where,
          header: expect.objectContaining({
            required: false,
            schema: expect.objectContaining({ type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]{1,255}$" }),
          }),
        });
        expect(op.responses["422"]).toEqual({ $ref: "#/components/responses/E422" });
        expect(success.headers).toHaveProperty("Idempotent-Replayed");
      }
    }
    expect(seen.writes).toBe(restRoutes.filter((r) => r.method !== "GET").length);
    expect(seen.reads).toBeGreaterThan(0);
    expect(doc.components.responses.E422.description).toMatch(/Idempotency-Key/);
  });

  it("describes every request field: each path and query parameter and each property of each JSON body", async () => {
    const doc = (await t().app.inject({ method: "GET", url: "/openapi.json" })).json();
    type Parameter = { name: string; in: string; description?: string; schema: { description?: unknown } };
    type Operation = {
      operationId: string;
      parameters?: Parameter[];
      requestBody?: { content: { "application/json": { schema: { properties?: Record<string, { description?: unknown }> } } } };
    };
    const undescribed: string[] = [];
    const fields: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        for (const p of op.parameters ?? []) {
          fields.push(`${where} ${p.in}:${p.name}`);
          const described = typeof p.schema.description === "string" && p.schema.description.trim() !== "";
          if (!described || p.description !== p.schema.description) undescribed.push(`${where} ${p.in}:${p.name}`);
        }
        const body = op.requestBody?.content["application/json"].schema.properties ?? {};
        for (const [name, field] of Object.entries(body)) {
          fields.push(`${where} body:${name}`);
          if (typeof field.description !== "string" || field.description.trim() === "") {
            undescribed.push(`${where} body:${name}`);
          }
        }
      }
    }
    expect(fields.length).toBeGreaterThan(20);
    expect(undescribed).toEqual([]);
  });

  it("renders the reference page at /docs, pointing at /openapi.json, without authentication", async () => {
    const page = await t().app.inject({ method: "GET", url: "/docs/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    const init = await t().app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain("/openapi.json");
  });
});

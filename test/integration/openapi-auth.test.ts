// The better-auth paths a person signs in with, in /openapi.json (server/rest/openapi-auth.ts, issue U.4): each
// is listed with its request schema, and real answers of this service validate against the answers documented.
// The account surface that replaced better-auth's admin paths (issue X) is documented as every REST route is,
// its 202s included.
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../server/rest/openapi.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestApp, useTestApp } from "../helpers/app.js";
import { contractChecker, type OpenApiDocument } from "../helpers/contract-check.js";

// biome-ignore lint/suspicious/noExplicitAny: the parsed document, walked field by field as the assertions go
type Json = Record<string, any>;

const document = buildOpenApiDocument() as unknown as OpenApiDocument & { paths: Record<string, Record<string, Json>> };
const checker = contractChecker(document);

/** One call to /api/auth/*, its answer held to the document's operation for that path. */
async function call(t: TestApp, method: "GET" | "POST", path: string, options: { token?: string; body?: unknown; query?: string } = {}) {
  const res = await t.app.inject({
    method,
    url: `${path}${options.query ?? ""}`,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(method === "POST" ? { "content-type": "application/json", origin: TEST_ORIGIN } : {}),
    },
    ...(method === "POST" ? { payload: JSON.stringify(options.body ?? {}) } : {}),
  });
  const problems = checker.check({ method, route: path, status: res.statusCode, headers: res.headers, body: res.body });
  expect({ path, status: res.statusCode, problems }).toEqual({ path, status: res.statusCode, problems: [] });
  return { status: res.statusCode, body: res.json() as Json };
}

const email = (who: string) => `${who}-${Math.random().toString(36).slice(2, 8)}@test.local`;

describe("/openapi.json documents the better-auth paths a person signs in with", () => {
  it("lists each with its method, its request schema and its answers; better-auth's admin paths are gone", () => {
    const body = (path: string) => document.paths[path]!.post!.requestBody.content["application/json"].schema;
    expect(body("/api/auth/sign-in/email")).toMatchObject({ type: "object", required: ["email", "password"] });
    expect(body("/api/auth/sign-up/email")).toMatchObject({ type: "object", required: ["name", "email", "password"] });
    expect(document.paths["/api/auth/sign-out"]!.post).toBeDefined();
    expect(document.paths["/api/auth/get-session"]!.get).toBeDefined();
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/api/auth/admin"))).toEqual([]);
  });

  it("documents the account surface, with a 202 where a grant waits for approval", () => {
    expect(body("/api/admin/users")).toMatchObject({ required: ["email", "password", "name"], additionalProperties: false });
    expect(Object.keys(document.paths["/api/admin/users"]!.post!.responses)).toEqual(expect.arrayContaining(["201", "202", "409"]));
    expect(Object.keys(document.paths["/api/admin/users/{id}/role"]!.post!.responses)).toEqual(expect.arrayContaining(["200", "202"]));
    expect(document.paths["/api/admin/impersonation/stop"]!.post).toBeDefined();
    function body(path: string) {
      return document.paths[path]!.post!.requestBody.content["application/json"].schema;
    }
  });
});

describe("real answers validate against it", () => {
  const t = useTestApp();

  it("sign-up, sign-in, get-session, a refusal, better-auth's closed admin path, and sign-out", async () => {
    const admin = await t().signUp({ admin: true });
    const signUp = await call(t(), "POST", "/api/auth/sign-up/email", {
      body: { name: "Pat", email: email("pat"), password: TEST_PASSWORD },
    });
    expect(signUp.status).toBe(200);
    const signIn = await call(t(), "POST", "/api/auth/sign-in/email", { body: { email: admin.email, password: TEST_PASSWORD } });
    expect(signIn.body).toMatchObject({ redirect: false, user: { email: admin.email, role: "admin" } });
    const token = signIn.body.token as string;
    expect((await call(t(), "GET", "/api/auth/get-session", { token })).body).toMatchObject({ user: { id: admin.id } });
    expect((await call(t(), "GET", "/api/auth/get-session")).body).toBeNull();
    expect(
      (await call(t(), "POST", "/api/auth/sign-in/email", { body: { email: admin.email, password: "wrong-password-1" } })).status,
    ).toBe(401);
    const closed = await t().app.inject({
      method: "POST",
      url: "/api/auth/admin/set-role",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", origin: TEST_ORIGIN },
      payload: { userId: admin.id, role: "admin" },
    });
    expect({ status: closed.statusCode, code: closed.json().error.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect((await call(t(), "POST", "/api/auth/sign-out", { token })).body).toEqual({ success: true });
  });

  it("a duplicate sign-up's 422 and a NUL in a sign-up body's 400", async () => {
    const taken = await t().signUp();
    const again = await call(t(), "POST", "/api/auth/sign-up/email", {
      body: { name: "Again", email: taken.email, password: TEST_PASSWORD },
    });
    expect([again.status, again.body.code]).toEqual([422, "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL"]);
    const nul = await call(t(), "POST", "/api/auth/sign-up/email", {
      body: { name: "N\u0000", email: email("nul"), password: TEST_PASSWORD },
    });
    expect([nul.status, nul.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
  });
});

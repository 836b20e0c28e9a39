// The better-auth paths an operator uses, in /openapi.json (server/rest/openapi-auth.ts, issue U.4): each is
// listed with its request schema, and real answers of this service validate against the answers documented,
// with and without APPROVALS=required (the four-eyes 202s).
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

describe("/openapi.json documents the better-auth paths an operator uses", () => {
  it("lists each with its method, its request schema and its answers", () => {
    const body = (path: string) => document.paths[path]!.post!.requestBody.content["application/json"].schema;
    expect(body("/api/auth/sign-in/email")).toMatchObject({ type: "object", required: ["email", "password"] });
    expect(body("/api/auth/sign-up/email")).toMatchObject({ type: "object", required: ["name", "email", "password"] });
    expect(body("/api/auth/admin/create-user")).toMatchObject({ required: ["email", "name"], properties: { password: {}, role: {} } });
    expect(body("/api/auth/admin/set-role")).toMatchObject({ required: ["userId", "role"] });
    expect(body("/api/auth/admin/ban-user")).toMatchObject({ required: ["userId"], properties: { banReason: {}, banExpiresIn: {} } });
    for (const path of ["unban-user", "revoke-user-sessions", "remove-user"]) {
      expect(body(`/api/auth/admin/${path}`)).toMatchObject({ required: ["userId"] });
    }
    const listUsers = document.paths["/api/auth/admin/list-users"]!.get!;
    expect(listUsers.parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(["searchValue", "searchField", "limit", "offset"]),
    );
    expect(Object.keys(document.paths["/api/auth/admin/set-role"]!.post!.responses)).toEqual(expect.arrayContaining(["200", "202", "403"]));
    expect(document.paths["/api/auth/sign-out"]!.post).toBeDefined();
    expect(document.paths["/api/auth/get-session"]!.get).toBeDefined();
  });
});

describe("real answers validate against it", () => {
  const t = useTestApp();

  it("sign-up, sign-in, get-session, the admin's user paths, a refusal, and sign-out", async () => {
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

    const created = await call(t(), "POST", "/api/auth/admin/create-user", {
      token,
      body: { email: email("second"), password: TEST_PASSWORD, name: "Second Admin" },
    });
    const userId = created.body.user.id as string;
    const found = await call(t(), "GET", "/api/auth/admin/list-users", {
      token,
      query: `?searchValue=${encodeURIComponent(created.body.user.email)}&searchField=email&searchOperator=contains&limit=10`,
    });
    expect(found.body).toMatchObject({ total: 1, limit: 10, users: [{ id: userId }] });
    expect((await call(t(), "GET", "/api/auth/admin/list-users", { token })).body.total).toBeGreaterThan(1);
    expect((await call(t(), "POST", "/api/auth/admin/set-role", { token, body: { userId, role: "admin" } })).body).toMatchObject({
      user: { role: "admin" },
    });
    const banned = await call(t(), "POST", "/api/auth/admin/ban-user", {
      token,
      body: { userId, banReason: "left the team", banExpiresIn: 3600 },
    });
    expect(banned.body.user).toMatchObject({ banned: true, banReason: "left the team" });
    expect((await call(t(), "POST", "/api/auth/admin/unban-user", { token, body: { userId } })).body.user.banned).toBe(false);
    expect((await call(t(), "POST", "/api/auth/admin/revoke-user-sessions", { token, body: { userId } })).body).toEqual({ success: true });
    expect((await call(t(), "POST", "/api/auth/admin/remove-user", { token, body: { userId } })).body).toEqual({ success: true });
    expect((await call(t(), "POST", "/api/auth/admin/set-role", { token, body: { userId, role: "user" } })).status).toBe(404);

    const ordinary = await t().signUp();
    expect((await call(t(), "GET", "/api/auth/admin/list-users", { token: ordinary.token })).status).toBe(403);
    expect(
      (await call(t(), "POST", "/api/auth/sign-in/email", { body: { email: admin.email, password: "wrong-password-1" } })).status,
    ).toBe(401);
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

describe("real answers validate against it while approvals are required", () => {
  const t = useTestApp({ approvals: "required" });

  it("granting admin by set-role or create-user answers 202 with the change request", async () => {
    const admin = await t().signUp({ admin: true });
    const someone = await t().signUp();
    const grant = await call(t(), "POST", "/api/auth/admin/set-role", { token: admin.token, body: { userId: someone.id, role: "admin" } });
    expect(grant).toMatchObject({ status: 202, body: { changeRequest: { action: "grant-admin", status: "pending", userId: someone.id } } });
    const created = await call(t(), "POST", "/api/auth/admin/create-user", {
      token: admin.token,
      body: { email: email("third"), password: TEST_PASSWORD, name: "Third", role: "admin" },
    });
    expect(created).toMatchObject({ status: 202, body: { user: { role: "user" }, changeRequest: { action: "grant-admin" } } });
  });
});

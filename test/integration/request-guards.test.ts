// What a request must look like before anything else runs (docs/api.md#browsers, issue K): a write with the
// session cookie comes from a trusted origin, a write's body is JSON, JSON nests no deeper than 64 levels,
// a path under /api/auth/ is in normal form, a tRPC batch holds at most TRPC_MAX_BATCH_SIZE calls, and a
// client's mistakes in calling tRPC are 4xx, never 500.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { restRoutes } from "../../server/rest/routes.js";
import { appRouter } from "../../server/routers/index.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestUser, useTestApp } from "../helpers/app.js";
import { rawRequest } from "../helpers/net.js";
import { snapshotTables } from "../helpers/snapshot.js";

const t = useTestApp({ limits: { trpcBatchSize: 3 } });

/**
 * An origin the app does not trust (test apps trust any port of 127.0.0.1, test/helpers/app.ts; the same
 * host on another port is test/browser's case).
 */
const UNTRUSTED_ORIGIN = "http://localhost:4999";
const UNTRUSTED = { code: "FORBIDDEN", message: "A write with the session cookie must come from a trusted origin" };

/** The session cookie better-auth sets at sign-in, as a browser sends it back. */
async function sessionCookie(user: TestUser): Promise<string> {
  const res = await t().app.inject({
    method: "POST",
    url: "/api/auth/sign-in/email",
    headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
    payload: { email: user.email, password: TEST_PASSWORD },
  });
  const cookie = res.cookies.find((c) => c.name.endsWith("session_token"));
  if (!cookie) throw new Error(`no session cookie: ${res.statusCode} ${res.body}`);
  return `${cookie.name}=${cookie.value}`;
}

/** Every write of the service: REST writes (ids filled in) and tRPC mutations, each with a JSON body. */
const writes = [
  ...restRoutes
    .filter((r) => r.method !== "GET")
    .map((r) => ({ label: `${r.method} ${r.path}`, method: r.method, url: r.path.replace(/:\w+/g, () => randomUUID()) })),
  ...Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
    .filter(([, p]) => p._def.type === "mutation")
    .map(([path]) => ({ label: `tRPC ${path}`, method: "POST" as const, url: `/trpc/${path}` })),
];

const error = (res: LightMyRequestResponse) => (res.json() as { error: { code: string; message: string } }).error;

describe("writes carrying the session cookie", () => {
  let admin: TestUser;
  let cookie: string;
  beforeAll(async () => {
    admin = await t().signUp({ admin: true });
    cookie = await sessionCookie(admin);
  });
  const send = (w: (typeof writes)[number], headers: Record<string, string>) =>
    t().app.inject({ method: w.method, url: w.url, headers: { "content-type": "application/json", ...headers }, payload: "{}" });

  it("are refused with 403 from another origin, or with no origin at all, and change nothing", async () => {
    const before = await snapshotTables(t().db.db);
    for (const w of writes) {
      const attempts: Record<string, string>[] = [
        { cookie, origin: UNTRUSTED_ORIGIN },
        { cookie },
        { cookie, origin: "null" },
        { cookie, "sec-fetch-site": "same-site" },
      ];
      for (const headers of attempts) {
        const res = await send(w, headers);
        expect({ write: w.label, headers, status: res.statusCode, error: error(res) }).toEqual({
          write: w.label,
          headers,
          status: 403,
          error: UNTRUSTED,
        });
      }
    }
    expect(await snapshotTables(t().db.db)).toEqual(before);
  });

  it("are answered as a bearer caller's are from a trusted origin or the service's own page", async () => {
    for (const w of writes) {
      const asBearer = await send(w, admin.headers);
      const trusted: Record<string, string>[] = [
        { cookie, origin: TEST_ORIGIN },
        { cookie, "sec-fetch-site": "same-origin" },
      ];
      for (const headers of trusted) {
        const res = await send(w, headers);
        expect({ write: w.label, status: res.statusCode }).toEqual({ write: w.label, status: asBearer.statusCode });
      }
    }
  });

  it("leave bearer callers alone: no origin needed, cookie or not", async () => {
    const res = await t().app.inject({ method: "PATCH", url: "/api/notifications/read-all", headers: { ...admin.headers, cookie } });
    expect(res.statusCode).toBe(200);
  });

  it("from another origin, are refused whatever Authorization comes along (a browser adds Basic behind an HTTP-auth proxy)", async () => {
    const before = await snapshotTables(t().db.db);
    for (const w of writes) {
      for (const authorization of ["Basic dXNlcjpwYXNz", "Digest username=x", "basic"]) {
        const headers = { cookie, origin: UNTRUSTED_ORIGIN, authorization };
        const res = await send(w, headers);
        expect({ write: w.label, authorization, status: res.statusCode, error: error(res) }).toEqual({
          write: w.label,
          authorization,
          status: 403,
          error: UNTRUSTED,
        });
      }
    }
    expect(await snapshotTables(t().db.db)).toEqual(before);
  });

  it("from another origin, never count the cookie: a bad bearer token or an API key beside it is a caller without a session", async () => {
    const before = await snapshotTables(t().db.db);
    for (const w of writes) {
      const credentials: Record<string, string>[] = [
        { authorization: "Bearer not-a-session" },
        { authorization: "bearer x.y" },
        { "x-api-key": "rk_unknown" },
      ];
      for (const own of credentials) {
        const res = await send(w, { cookie, origin: UNTRUSTED_ORIGIN, ...own });
        expect({ write: w.label, own, status: res.statusCode }).toEqual({ write: w.label, own, status: 401 });
      }
    }
    expect(await snapshotTables(t().db.db)).toEqual(before);
    // The account surface too: the admin's cookie does not make another user an admin.
    const user = await t().signUp();
    const setRole = await t().app.inject({
      method: "POST",
      url: `/api/admin/users/${user.id}/role`,
      headers: { cookie, origin: UNTRUSTED_ORIGIN, authorization: "Bearer not-a-session", "content-type": "application/json" },
      payload: { role: "admin" },
    });
    expect(setRole.statusCode).toBe(401);
    const basic = await t().app.inject({
      method: "POST",
      url: `/api/admin/users/${user.id}/role`,
      headers: { cookie, origin: UNTRUSTED_ORIGIN, authorization: "Basic dXNlcjpwYXNz", "content-type": "application/json" },
      payload: { role: "admin" },
    });
    expect({ status: basic.statusCode, error: error(basic) }).toEqual({ status: 403, error: UNTRUSTED });
    const [stored] = await t().db.db.select({ role: users.role }).from(users).where(eq(users.id, user.id));
    expect(stored?.role).toBe("user");
    expect(await snapshotTables(t().db.db)).toEqual(before);
  });

  it("with a valid bearer token from another origin, act as the token's user, never the cookie's", async () => {
    const other = await t().signUp();
    const res = await t().app.inject({
      method: "POST",
      url: "/trpc/apiKeys.create",
      headers: { ...other.headers, cookie, origin: UNTRUSTED_ORIGIN, "content-type": "application/json" },
      payload: { json: { name: "not-for-the-cookie", scopes: ["flags:read"] } },
    });
    expect(res.statusCode).toBe(403);
  });
});

describe("a write's body", () => {
  it("is JSON: text, a form or multipart is 415 on REST and tRPC, for anyone; no body at all is fine", async () => {
    const user = await t().signUp();
    const bodies = [
      ["text/plain", "{}"],
      ["application/x-www-form-urlencoded", "a=1"],
      ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'],
    ];
    for (const url of ["/api/notifications/read-all", "/trpc/notifications.markAllRead"]) {
      for (const [type, payload] of bodies) {
        const res = await t().app.inject({
          method: url.startsWith("/trpc") ? "POST" : "PATCH",
          url,
          headers: { ...user.headers, "content-type": type! },
          payload,
        });
        expect({ url, type, status: res.statusCode, code: error(res).code }).toEqual({ url, type, status: 415, code: "VALIDATION_ERROR" });
      }
    }
    const noBody = await t().app.inject({ method: "PATCH", url: "/api/notifications/read-all", headers: user.headers });
    expect(noBody.statusCode).toBe(200);
  });

  it("is refused with 415 before it is read: a multipart upload far over the body limit", async () => {
    const user = await t().signUp();
    const huge = Buffer.alloc(8 * 1024 * 1024, "a");
    const res = await t().app.inject({
      method: "POST",
      url: "/trpc/notifications.markAllRead",
      headers: { ...user.headers, "content-type": "multipart/form-data; boundary=x" },
      payload: huge,
    });
    expect(res.statusCode).toBe(415);
  });
});

describe("JSON nested deeper than 64 levels", () => {
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const deepObject = (depth: number) => `{"a":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;

  it("is 400 on REST, on /api/auth/*, in a tRPC body, a tRPC query's input and superjson's meta; 64 levels are fine", async () => {
    const user = await t().signUp();
    const json = { ...user.headers, "content-type": "application/json" };
    const deep = deepObject(10_000);
    const cases = [
      { label: "REST", method: "PATCH" as const, url: "/api/notifications/read-all", payload: deep },
      { label: "auth", method: "POST" as const, url: "/api/auth/sign-in/email", payload: deep, origin: TEST_ORIGIN },
      { label: "tRPC body", method: "POST" as const, url: "/trpc/notifications.markAllRead", payload: `{"json":${nested(10_000)}}` },
      { label: "tRPC meta", method: "POST" as const, url: "/trpc/notifications.markAllRead", payload: `{"json":{},"meta":${deep}}` },
      {
        label: "tRPC query input",
        method: "GET" as const,
        url: `/trpc/notifications.list?input=${encodeURIComponent(`{"json":${nested(10_000)}}`)}`,
      },
    ];
    for (const c of cases) {
      const res = await t().app.inject({
        method: c.method,
        url: c.url,
        headers: { ...json, ...(c.origin ? { origin: c.origin } : {}) },
        payload: c.payload,
      });
      expect({ case: c.label, status: res.statusCode, body: res.body }).toMatchObject({
        case: c.label,
        status: 400,
        body: expect.stringContaining("nests deeper than 64 levels"),
      });
    }
    const atTheBound = await t().app.inject({
      method: "PATCH",
      url: "/api/notifications/read-all",
      headers: json,
      payload: `{"x":${nested(63)}}`,
    });
    expect(atTheBound.statusCode).toBe(200);
  });
});

describe("paths under /api/auth/, sent as written (node:http)", () => {
  /** Each limited operation's path written in the ways better-auth would resolve to it. */
  const variantsOf = (path: string) => {
    const [, api, auth, ...rest] = path.split("/");
    const tail = rest.join("/");
    return [
      `/${api}/${auth}/./${tail}`,
      `/${api}/${auth}/x/../${tail}`,
      `/${api}/${auth}//${tail}`,
      `/${api}/${auth}/%2e/${tail}`,
      `/${api}/${auth}/${tail.replace("e", "%65")}`,
      `/${api}/${auth}/${tail}/`,
      `/${api}/${auth}/${tail}/.`,
    ];
  };
  let base: string;
  beforeAll(async () => {
    base = await t().app.listen({ port: 0, host: "127.0.0.1" });
  });
  const post = (path: string, body: object) =>
    rawRequest(base, {
      method: "POST",
      path,
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("are served in normal form only: for every limited operation, each other form is 400 and reaches nothing", async () => {
    const user = await t().signUp();
    for (const [path, body] of [
      ["/api/auth/sign-in/email", { email: user.email, password: TEST_PASSWORD }],
      ["/api/auth/sign-up/email", { name: "Variant", email: `variant-${randomUUID()}@test.local`, password: TEST_PASSWORD }],
    ] as const) {
      for (const variant of variantsOf(path)) {
        const res = await post(variant, body);
        expect({ variant, status: res.status, body: res.body }).toMatchObject({
          variant,
          status: 400,
          body: expect.stringContaining("Malformed URL"),
        });
      }
    }
  });

  it("leave no path of the REST table reachable in another form", async () => {
    const admin = await t().signUp({ admin: true });
    for (const route of restRoutes) {
      const path = route.path.replace(/:\w+/g, () => randomUUID());
      for (const variant of [path.replace("/api/", "/api/./"), path.replace("/api/", "/api/x/../"), path.replace("/api/", "/api//")]) {
        const res = await rawRequest(base, { method: route.method, path: variant, headers: admin.headers });
        expect({ variant, status: res.status }).toEqual({ variant, status: 404 });
      }
    }
  });
});

describe("the sign-in limit, whatever the path's form (node:http)", () => {
  const limited = useTestApp({ limits: { signIn: { max: 2, timeWindowMs: 60_000 } } });
  it("spent on the plain path, is not bypassed by another form: each is 400, and the right password gets no session", async () => {
    const base = await limited().app.listen({ port: 0, host: "127.0.0.1" });
    const user = await limited().signUp();
    const signIn = (path: string, password: string) =>
      rawRequest(base, {
        method: "POST",
        path,
        headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ email: user.email, password }),
      });
    expect((await signIn("/api/auth/sign-in/email", "wrong-password-1")).status).toBe(401);
    expect((await signIn("/api/auth/sign-in/email", "wrong-password-2")).status).toBe(401);
    expect((await signIn("/api/auth/sign-in/email", "wrong-password-3")).status).toBe(429);
    for (const path of [
      "/api/auth/./sign-in/email",
      "/api/auth/x/../sign-in/email",
      "/api/auth//sign-in/email",
      "/api/auth/%2e/sign-in/email",
      "/api/auth/sign-in/email/",
      "/api/auth/SIGN-IN/email",
    ]) {
      const wrong = await signIn(path, "wrong-password-4");
      const right = await signIn(path, TEST_PASSWORD);
      expect({ path, wrong: wrong.status, right: right.status, session: right.body.includes("token") }).toEqual({
        path,
        wrong: expect.toBeOneOf([400, 429]),
        right: expect.toBeOneOf([400, 429]),
        session: false,
      });
    }
  });
});

describe("tRPC", () => {
  it("answers a client's mistakes with 405, 415 or 400, never 500", async () => {
    const user = await t().signUp();
    const call = (method: "GET" | "POST" | "PUT", url: string, headers: Record<string, string> = {}, payload?: string) =>
      t().app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload !== undefined ? { payload } : {}) });
    const answers = {
      "mutation over GET": (await call("GET", "/trpc/notifications.markAllRead")).statusCode,
      "query over POST": (await call("POST", "/trpc/notifications.unreadCount", { "content-type": "application/json" }, "{}")).statusCode,
      PUT: (await call("PUT", "/trpc/notifications.markAllRead", { "content-type": "application/json" }, "{}")).statusCode,
      "POST with a body and no content type": (await call("POST", "/trpc/notifications.markAllRead", {}, "{}")).statusCode,
      "malformed JSON": (await call("POST", "/trpc/notifications.markAllRead", { "content-type": "application/json" }, "{")).statusCode,
    };
    expect(answers).toEqual({
      "mutation over GET": 405,
      "query over POST": 405,
      PUT: 405,
      "POST with a body and no content type": 415,
      "malformed JSON": 400,
    });
  });

  it("answers a batch over TRPC_MAX_BATCH_SIZE calls with 400, and serves one at the bound", async () => {
    const user = await t().signUp();
    const batch = (n: number) =>
      t().app.inject({
        method: "GET",
        url: `/trpc/${Array(n).fill("notifications.unreadCount").join(",")}?batch=1&input=${encodeURIComponent("{}")}`,
        headers: user.headers,
      });
    expect((await batch(3)).statusCode).toBe(200);
    const over = await batch(4);
    expect(over.statusCode).toBe(400);
  });
});

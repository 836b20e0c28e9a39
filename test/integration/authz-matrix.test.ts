// The authorization matrix: every REST route (the REST table) and every tRPC procedure (called over HTTP at
// /trpc/<path>) × every kind of caller, each cell asserting the documented status and code. The rows
// (test/helpers/authz-rows.ts) are written by hand from docs/api.md#authentication; a route or procedure without
// a row fails, and so does a row for one that no longer exists. Every refused call must leave the service's
// tables as they were.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { sessions, users } from "../../db/schema/index.js";
import { type RestRoute, restRoutes } from "../../server/rest/routes.js";
import { appRouter } from "../../server/routers/index.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { type Access, PERSONAS, type Persona, type ProcedureRow, procedureRows, restRows } from "../helpers/authz-rows.js";
import { freshId, type Personas, signUpPersonas } from "../helpers/fixtures.js";
import { impersonate } from "../helpers/four-eyes.js";
import { byHand } from "../helpers/memory.js";
import type { Json } from "../helpers/rest.js";
import { snapshotTables } from "../helpers/snapshot.js";

// Configured, so the admin's cell of testPush is a success rather than the contract's unconfigured 500.
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

type Expected =
  | { outcome: "success" }
  | { outcome: "refused"; status: 401 | 403 | 409; code: "UNAUTHORIZED" | "FORBIDDEN" | "CONFLICT"; message?: string };

/** The contract's answer for one cell. */
function expectedCell(access: Access, persona: Persona): Expected {
  if (persona === "anonymous" || persona === "expired" || persona === "forged") {
    return { outcome: "refused", status: 401, code: "UNAUTHORIZED" };
  }
  if (access === "impersonating") {
    return persona === "impersonation" ? { outcome: "success" } : { outcome: "refused", status: 409, code: "CONFLICT" };
  }
  // An impersonation session acts as the user impersonated, with that user's rights and no more.
  if (persona === "impersonation") return expectedCell(access, "user");
  if (access === "admin" && persona !== "admin") return { outcome: "refused", status: 403, code: "FORBIDDEN" };
  if (access === "owner" && persona === "other") {
    return { outcome: "refused", status: 403, code: "FORBIDDEN", message: "Access denied" };
  }
  return { outcome: "success" };
}

describe("authorization matrix", () => {
  const t = useTestApp({ push: { vapid } });

  let callers: Personas;
  /** An admin whose session is expired before each of its calls: a 401 cannot hide behind a 403. */
  let expiredAdmin: TestUser;
  let expiredSession: typeof sessions.$inferSelect;
  /** A user no cell subscribes: the target of testPush, so no push ever leaves the process. */
  let quietUserId: string;
  /** The admin's impersonation session of `user`. */
  let impersonation: TestUser;

  beforeAll(async () => {
    callers = await signUpPersonas(t());
    impersonation = await impersonate(t(), callers.admin, callers.user);
    expiredAdmin = await t().signUp({ admin: true });
    const [session] = await t().db.db.select().from(sessions).where(eq(sessions.userId, expiredAdmin.id));
    expiredSession = { ...session!, expiresAt: new Date(Date.now() - 60_000) };
    quietUserId = freshId("quiet");
    await t()
      .db.db.insert(users)
      .values({ id: quietUserId, name: "Quiet", email: `${quietUserId}@test.local` });
  });

  const db = () => t().db.db;
  const rows: Record<string, ProcedureRow> = procedureRows(() => ({ app: t(), callers, quietUserId, vapidPublicKey: vapid.publicKey }));
  const R = "/api/admin/restriction";

  type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription" } };
  const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
  const routeKey = (route: RestRoute) => `${route.method} ${route.path}`;

  it("has one row per REST route and per tRPC procedure, and none for anything else", () => {
    expect(Object.keys(restRows).sort()).toEqual(restRoutes.map(routeKey).sort());
    expect(Object.keys(rows).sort()).toEqual(Object.keys(procedures).sort());
    for (const route of restRoutes) expect(restRows[routeKey(route)]?.procedure, routeKey(route)).toBe(route.procedure);
  });

  // ---- callers and requests ----

  function headersOf(as: Persona): Record<string, string> {
    switch (as) {
      case "anonymous":
        return {};
      case "expired":
        return expiredAdmin.headers;
      case "forged":
        // Shaped like a real session token, as bearer and as the session cookie.
        return {
          authorization: `Bearer ${randomBytes(24).toString("base64url").slice(0, 32)}`,
          cookie: `better-auth.session_token=${randomBytes(24).toString("base64url")}.${randomBytes(32).toString("base64url")}`,
        };
      case "impersonation":
        return impersonation.headers;
      default:
        return callers[as].headers;
    }
  }

  /** better-auth deletes an expired session it sees: put it back, still expired, before each call. */
  async function expireSession() {
    await byHand(
      db()
        .insert(sessions)
        .values(expiredSession)
        .onConflictDoUpdate({ target: sessions.id, set: { expiresAt: expiredSession.expiresAt } }),
    );
  }

  type Answer = { status: number; ok: boolean; code?: string; message?: string; data?: unknown; raw: string };

  async function callRest(route: RestRoute, input: Json | undefined, headers: Record<string, string>): Promise<Answer> {
    const fields: Json = { ...input };
    const url = route.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = String(fields[name]);
      delete fields[name];
      return encodeURIComponent(value);
    });
    const query = route.input === "query" ? new URLSearchParams(fields as Record<string, string>).toString() : "";
    const res: LightMyRequestResponse = await t().app.inject({
      method: route.method,
      url: query ? `${url}?${query}` : url,
      headers,
      ...(route.input === "body" ? { payload: fields } : {}),
    });
    const body = res.json() as { success: boolean; data?: unknown; error?: { code: string; message: string } };
    return {
      status: res.statusCode,
      ok: body.success === true,
      code: body.error?.code,
      message: body.error?.message,
      data: body.data,
      raw: res.body,
    };
  }

  /**
   * A subscription answers over SSE: HTTP 200, then either its first event or a `serialized-error` event
   * carrying the error's httpStatus (tRPC's protocol); the cell reads that status.
   */
  async function callSubscription(path: string, headers: Record<string, string>): Promise<Answer> {
    const res = await t().app.inject({ method: "GET", url: `/trpc/${path}`, headers, payloadAsStream: true });
    const stream = res.stream();
    let text = "";
    const event = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${path}: no event within 2 s: ${text}`)), 2_000);
      stream.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const block = text
          .split("\n\n")
          .map((b) => b.trim())
          .find((b) => b.includes("data:") && !b.startsWith("event: connected"));
        if (block) {
          clearTimeout(timer);
          resolve(block);
        }
      });
    });
    stream.destroy();
    const json = JSON.parse(event.slice(event.indexOf("data:") + 5)) as {
      json: { count?: number; message?: string; data?: { appCode: string; httpStatus: number } };
    };
    if (event.startsWith("event: serialized-error")) {
      const error = json.json;
      return { status: error.data!.httpStatus, ok: false, code: error.data!.appCode, message: error.message, raw: event };
    }
    return { status: res.statusCode, ok: true, data: json.json, raw: event };
  }

  async function callTrpc(path: string, input: Json | undefined, headers: Record<string, string>): Promise<Answer> {
    const type = procedures[path]!._def.type;
    if (type === "subscription") return callSubscription(path, headers);
    const res =
      type === "query"
        ? await t().app.inject({
            method: "GET",
            url: `/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`}`,
            headers,
          })
        : await t().app.inject({
            method: "POST",
            url: `/trpc/${path}`,
            headers: { ...headers, "content-type": "application/json" },
            payload: JSON.stringify(input === undefined ? {} : { json: input }),
          });
    const body = res.json() as {
      result?: { data: { json: unknown } };
      error?: { json: { message: string; data: { appCode: string } } };
    };
    return {
      status: res.statusCode,
      ok: body.result !== undefined,
      code: body.error?.json.data.appCode,
      message: body.error?.json.message,
      data: body.result?.data.json,
      raw: res.body,
    };
  }

  /** Runs the seven cells of one row; every cell is checked even when an earlier one failed. */
  async function runRow(
    label: string,
    row: ProcedureRow,
    successStatus: number,
    call: (input: Json | undefined, headers: Record<string, string>) => Promise<Answer>,
  ) {
    for (const as of PERSONAS) {
      const where = `${label} × ${as}`;
      const subject = as === "admin" ? callers.admin : callers.user;
      const { input, after, headers } = await row.prepare({ as, subject });
      const expected = expectedCell(row.access, as);
      const before = expected.outcome === "refused" ? await snapshotTables(db()) : undefined;
      if (as === "expired") await expireSession();
      const answer = await call(input, headers ?? headersOf(as));
      if (expected.outcome === "success") {
        expect.soft(answer.status, `${where}: ${answer.raw}`).toBe(successStatus);
        expect.soft(answer.ok, `${where}: ${answer.raw}`).toBe(true);
        if (answer.ok && after) {
          try {
            await after(answer.data);
          } catch (err) {
            throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
          }
        }
      } else {
        expect.soft({ status: answer.status, code: answer.code }, `${where}: ${answer.raw}`).toEqual({
          status: expected.status,
          code: expected.code,
        });
        if (expected.message) expect.soft(answer.message, where).toBe(expected.message);
        expect.soft(await snapshotTables(db()), `${where}: a refused call changed rows`).toEqual(before);
      }
    }
  }

  describe("every REST route × every kind of caller", () => {
    for (const route of restRoutes) {
      it(`${route.method} ${route.path}`, async () => {
        const rest = restRows[routeKey(route)];
        expect(rest, `no row in the matrix for ${routeKey(route)}`).toBeDefined();
        const row = rows[rest!.procedure];
        expect(row, `no row in the matrix for procedure ${rest!.procedure}`).toBeDefined();
        await runRow(routeKey(route), row!, rest!.status, (input, headers) => callRest(route, input, headers));
      });
    }
  });

  describe("every tRPC procedure over HTTP × every kind of caller", () => {
    for (const path of Object.keys(procedures)) {
      it(path, async () => {
        const row = rows[path];
        expect(row, `no row in the matrix for procedure ${path}`).toBeDefined();
        await runRow(`/trpc/${path}`, row!, 200, (input, headers) => callTrpc(path, input, headers));
      });
    }
  });

  it("an expired session is refused while the same token, refreshed, is accepted", async () => {
    // The expired cells mean something only if the token is otherwise good.
    await expireSession();
    await byHand(
      db()
        .update(sessions)
        .set({ expiresAt: new Date(Date.now() + 60_000) })
        .where(eq(sessions.id, expiredSession.id)),
    );
    const res = await t().app.inject({ method: "GET", url: `${R}/cohorts`, headers: expiredAdmin.headers });
    expect(res.statusCode, res.body).toBe(200);
    await expireSession();
    const refused = await t().app.inject({ method: "GET", url: `${R}/cohorts`, headers: expiredAdmin.headers });
    expect(refused.statusCode).toBe(401);
  });
});

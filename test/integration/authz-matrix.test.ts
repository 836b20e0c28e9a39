// The authorization matrix: every REST route (the REST table) and every tRPC procedure (called over HTTP at
// /trpc/<path>) × every kind of caller, each cell asserting the documented status and code. Rows are written
// by hand from docs/api.md#authentication; a route or procedure without a row fails, and so does a row for one
// that no longer exists. Every refused call must leave the service's tables as they were.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import webpush from "web-push";
import { beforeAll, describe, expect, it } from "vitest";
import { gateChecks, notifications, pros, pushSubscriptions, restrictionCohorts, sessions, users } from "../../db/schema/index.js";
import { restRoutes, type RestRoute } from "../../server/rest/routes.js";
import { appRouter } from "../../server/routers/index.js";
import { useTestApp, uniqueCohortNumber, type TestUser } from "../helpers/app.js";
import { snapshotTables } from "../helpers/snapshot.js";

// Configured, so the admin's cell of testPush is a success rather than the unconfigured 500 (docs/api.md#errors).
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

const PERSONAS = ["anonymous", "expired", "forged", "user", "other", "admin"] as const;
type Persona = (typeof PERSONAS)[number];

/**
 * Who may call: `admin` platform admins only; `user` any signed-in caller, on their own records;
 * `owner` any signed-in caller, but the record named in the input must be theirs (403 `Access denied`).
 */
type Access = "admin" | "user" | "owner";

type Cell =
  | { outcome: "success" }
  | { outcome: "refused"; status: 401 | 403; code: "UNAUTHORIZED" | "FORBIDDEN"; message?: string };

/** The documented answer for one cell (docs/api.md#authentication). */
function expectedCell(access: Access, persona: Persona): Cell {
  if (persona === "anonymous" || persona === "expired" || persona === "forged") {
    return { outcome: "refused", status: 401, code: "UNAUTHORIZED" };
  }
  if (access === "admin" && persona !== "admin") return { outcome: "refused", status: 403, code: "FORBIDDEN" };
  if (access === "owner" && persona === "other") {
    return { outcome: "refused", status: 403, code: "FORBIDDEN", message: "Access denied" };
  }
  return { outcome: "success" };
}

type Json = Record<string, unknown>;
/** What a row prepares for one cell: the input, and checks of a successful answer's data. */
type Prepared = { input?: Json; after?: (data: any) => Promise<void> | void };
/**
 * `subject` owns the records the input names: the caller itself for `user` and `admin`, and the normal
 * user for everyone else (`other` and the unauthenticated callers try someone else's real records).
 */
type Prepare = (cell: { as: Persona; subject: TestUser }) => Promise<Prepared>;
type ProcedureRow = { access: Access; prepare: Prepare };

describe("authorization matrix", () => {
  const t = useTestApp({ push: { vapid } });

  let callers: Record<"user" | "other" | "admin", TestUser>;
  /** An admin whose session is expired before each of its calls: a 401 cannot hide behind a 403. */
  let expiredAdmin: TestUser;
  let expiredSession: typeof sessions.$inferSelect;
  /** A user no cell subscribes: the target of testPush, so no push ever leaves the process. */
  let quietUserId: string;

  beforeAll(async () => {
    const [user, other, admin] = [await t().signUp(), await t().signUp(), await t().signUp({ admin: true })];
    callers = { user, other, admin };
    expiredAdmin = await t().signUp({ admin: true });
    const [session] = await t().db.db.select().from(sessions).where(eq(sessions.userId, expiredAdmin.id));
    expiredSession = { ...session!, expiresAt: new Date(Date.now() - 60_000) };
    quietUserId = `quiet-${randomBytes(6).toString("hex")}`;
    await t().db.db.insert(users).values({ id: quietUserId, name: "Quiet", email: `${quietUserId}@test.local` });
  });

  // ---- fixtures: written straight to the database (or through a caller), fresh for every cell ----

  const db = () => t().db.db;
  const freshId = (prefix: string) => `${prefix}-${randomBytes(6).toString("hex")}`;

  async function cohort(options: { passingCheck?: boolean } = {}) {
    const [row] = await db()
      .insert(restrictionCohorts)
      .values({ cohortNumber: uniqueCohortNumber(), proIds: [freshId("pro"), freshId("pro")] })
      .returning();
    if (options.passingCheck) {
      await db().insert(gateChecks).values({
        cohortId: row!.id,
        responseRate: 1,
        comparisonsDone: 50,
        logLive: true,
        legalSignoff: true,
        allGatesMet: true,
        blockedBy: null,
      });
    }
    return row!;
  }

  async function registeredPro() {
    const id = freshId("pro");
    await db().insert(pros).values({ id, name: `Pro ${id}` });
    return id;
  }

  async function notificationOf(owner: TestUser) {
    const { notification } = await t()
      .caller(callers.admin)
      .notifications.testInApp({ type: "system.matrix", title: "Matrix", targetUserId: owner.id });
    return notification.id;
  }

  async function notificationRow(id: string) {
    const [row] = await db().select().from(notifications).where(eq(notifications.id, id));
    return row!;
  }

  const keys = { p256dh: Buffer.alloc(65, 4).toString("base64url"), auth: Buffer.alloc(16, 7).toString("base64url") };
  const freshEndpoint = () => `https://push.invalid/${randomBytes(8).toString("hex")}`;

  async function subscriptionOf(owner: TestUser) {
    const { subscription } = await t().caller(owner).notifications.subscribe({ endpoint: freshEndpoint(), ...keys });
    return subscription;
  }

  // ---- the table: one row per tRPC procedure ----

  /** markRead and remove: the caller's own notification changes; anyone else's is refused. */
  const ownNotificationChange = (column: "readAt" | "deletedAt"): ProcedureRow => ({
    access: "owner",
    prepare: async ({ subject }) => {
      const id = await notificationOf(subject);
      return {
        input: { id },
        after: async (data) => {
          expect(data).toEqual({ success: true });
          expect((await notificationRow(id))[column]).not.toBeNull();
        },
      };
    },
  });

  const none: Prepare = async () => ({});

  const procedureRows: Record<string, ProcedureRow> = {
    "restriction.createCohort": {
      access: "admin",
      prepare: async () => ({ input: { cohortNumber: uniqueCohortNumber(), proIds: [freshId("pro")] } }),
    },
    "restriction.listCohorts": { access: "admin", prepare: none },
    "restriction.checkGates": {
      access: "admin",
      prepare: async () => ({ input: { id: (await cohort()).id, responseRate: 1, comparisonsDone: 50, legalSignoff: true } }),
    },
    "restriction.activateCohort": {
      access: "admin",
      prepare: async () => ({ input: { id: (await cohort({ passingCheck: true })).id } }),
    },
    "restriction.rollbackCohort": {
      access: "admin",
      prepare: async () => ({ input: { id: (await cohort()).id, reason: "matrix" } }),
    },
    "restriction.listActive": { access: "admin", prepare: none },
    "restriction.getPro": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro() } }) },
    "restriction.activatePro": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro() } }) },
    "restriction.rollbackPro": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro() } }) },

    "notifications.list": {
      access: "user",
      prepare: async ({ as, subject }) => {
        const id = await notificationOf(subject);
        return {
          input: {},
          after: (data) => {
            const ids = data.notifications.map((n: { id: string }) => n.id);
            // Someone else's notification never shows; the caller's own does.
            if (as === "other") expect(ids).not.toContain(id);
            else expect(ids).toContain(id);
          },
        };
      },
    },
    "notifications.unreadCount": {
      access: "user",
      prepare: async ({ as, subject }) => {
        await notificationOf(subject);
        // `other` never owns a notification: the subject's unread ones must not count for it.
        return { after: (data) => (as === "other" ? expect(data).toEqual({ count: 0 }) : expect(data.count).toBeGreaterThan(0)) };
      },
    },
    "notifications.markRead": ownNotificationChange("readAt"),
    "notifications.markAllRead": {
      access: "user",
      prepare: async ({ as, subject }) => {
        const id = await notificationOf(subject);
        return {
          input: {},
          after: async (data) => {
            if (as === "other") {
              expect(data).toEqual({ updated: 0 });
              expect((await notificationRow(id)).readAt).toBeNull();
            } else {
              expect(data.updated).toBeGreaterThan(0);
              expect((await notificationRow(id)).readAt).not.toBeNull();
            }
          },
        };
      },
    },
    "notifications.remove": ownNotificationChange("deletedAt"),
    "notifications.removeMany": {
      access: "user",
      prepare: async ({ as, subject }) => {
        const id = await notificationOf(subject);
        return {
          input: { ids: [id] },
          after: async (data) => {
            // Someone else's ids are skipped, not deleted.
            expect(data).toEqual({ deleted: as === "other" ? 0 : 1 });
            expect((await notificationRow(id)).deletedAt === null).toBe(as === "other");
          },
        };
      },
    },
    "notifications.listSubscriptions": {
      access: "user",
      prepare: async ({ as, subject }) => {
        const { id } = await subscriptionOf(subject);
        return {
          after: (data) => {
            const ids = data.subscriptions.map((s: { id: string }) => s.id);
            if (as === "other") expect(ids).not.toContain(id);
            else expect(ids).toContain(id);
          },
        };
      },
    },
    "notifications.subscribe": {
      access: "user",
      prepare: async ({ as }) => ({
        input: { endpoint: freshEndpoint(), ...keys },
        after: (data) => expect(data.subscription.userId).toBe(callers[as as "user" | "other" | "admin"].id),
      }),
    },
    "notifications.unsubscribe": {
      access: "user",
      prepare: async ({ as, subject }) => {
        const { id, endpoint } = await subscriptionOf(subject);
        return {
          input: { endpoint },
          after: async (data) => {
            expect(data).toEqual({ success: true });
            // Unsubscribing someone else's endpoint succeeds (idempotent) but leaves it active.
            const [row] = await db().select().from(pushSubscriptions).where(eq(pushSubscriptions.id, id));
            expect(row!.isActive).toBe(as === "other");
          },
        };
      },
    },
    "notifications.vapidPublicKey": {
      access: "user",
      prepare: async () => ({ after: (data) => expect(data).toEqual({ publicKey: vapid.publicKey }) }),
    },
    "notifications.testInApp": {
      access: "admin",
      prepare: async ({ subject }) => ({ input: { type: "system.matrix", title: "Matrix", targetUserId: subject.id } }),
    },
    "notifications.testPush": {
      access: "admin",
      prepare: async () => ({
        input: { type: "system.matrix", title: "Matrix", targetUserId: quietUserId },
        after: (data) => expect(data).toMatchObject({ sent: 0, failed: 0 }),
      }),
    },
    "notifications.testListSubscriptions": { access: "admin", prepare: none },
    "notifications.testClearSubscriptions": { access: "admin", prepare: none },
  };

  // ---- the table: one row per REST route, naming its procedure and its success status (docs/api.md#envelope) ----

  const R = "/api/admin/restriction";
  const N = "/api/notifications";
  const restRows: Record<string, { procedure: string; status: 200 | 201 }> = {
    [`POST ${R}/cohorts`]: { procedure: "restriction.createCohort", status: 201 },
    [`GET ${R}/cohorts`]: { procedure: "restriction.listCohorts", status: 200 },
    [`POST ${R}/cohorts/:id/check-gates`]: { procedure: "restriction.checkGates", status: 201 },
    [`POST ${R}/cohorts/:id/activate`]: { procedure: "restriction.activateCohort", status: 200 },
    [`POST ${R}/cohorts/:id/rollback`]: { procedure: "restriction.rollbackCohort", status: 200 },
    [`GET ${R}`]: { procedure: "restriction.listActive", status: 200 },
    [`GET ${R}/:proId`]: { procedure: "restriction.getPro", status: 200 },
    [`POST ${R}/:proId/activate`]: { procedure: "restriction.activatePro", status: 200 },
    [`POST ${R}/:proId/rollback`]: { procedure: "restriction.rollbackPro", status: 200 },
    [`GET ${N}`]: { procedure: "notifications.list", status: 200 },
    [`GET ${N}/unread-count`]: { procedure: "notifications.unreadCount", status: 200 },
    [`PATCH ${N}/read-all`]: { procedure: "notifications.markAllRead", status: 200 },
    [`DELETE ${N}/bulk`]: { procedure: "notifications.removeMany", status: 200 },
    [`GET ${N}/subscriptions`]: { procedure: "notifications.listSubscriptions", status: 200 },
    [`POST ${N}/subscriptions`]: { procedure: "notifications.subscribe", status: 200 },
    [`DELETE ${N}/subscriptions`]: { procedure: "notifications.unsubscribe", status: 200 },
    [`GET ${N}/vapid-public-key`]: { procedure: "notifications.vapidPublicKey", status: 200 },
    [`POST ${N}/test/in-app`]: { procedure: "notifications.testInApp", status: 200 },
    [`POST ${N}/test/push`]: { procedure: "notifications.testPush", status: 200 },
    [`GET ${N}/test/subscriptions`]: { procedure: "notifications.testListSubscriptions", status: 200 },
    [`DELETE ${N}/test/subscriptions`]: { procedure: "notifications.testClearSubscriptions", status: 200 },
    [`PATCH ${N}/:id/read`]: { procedure: "notifications.markRead", status: 200 },
    [`DELETE ${N}/:id`]: { procedure: "notifications.remove", status: 200 },
  };

  type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription" } };
  const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
  const routeKey = (route: RestRoute) => `${route.method} ${route.path}`;

  it("has one row per REST route and per tRPC procedure, and none for anything else", () => {
    expect(Object.keys(restRows).sort()).toEqual(restRoutes.map(routeKey).sort());
    expect(Object.keys(procedureRows).sort()).toEqual(Object.keys(procedures).sort());
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
      default:
        return callers[as].headers;
    }
  }

  /** better-auth deletes an expired session it sees: put it back, still expired, before each call. */
  async function expireSession() {
    await db()
      .insert(sessions)
      .values(expiredSession)
      .onConflictDoUpdate({ target: sessions.id, set: { expiresAt: expiredSession.expiresAt } });
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
    return { status: res.statusCode, ok: body.success === true, code: body.error?.code, message: body.error?.message, data: body.data, raw: res.body };
  }

  async function callTrpc(path: string, input: Json | undefined, headers: Record<string, string>): Promise<Answer> {
    const type = procedures[path]!._def.type;
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

  /** Runs the six cells of one row; every cell is checked even when an earlier one failed. */
  async function runRow(label: string, row: ProcedureRow, successStatus: number, call: (input: Json | undefined, headers: Record<string, string>) => Promise<Answer>) {
    for (const as of PERSONAS) {
      const where = `${label} × ${as}`;
      const subject = as === "user" || as === "admin" ? callers[as] : callers.user;
      const { input, after } = await row.prepare({ as, subject });
      const expected = expectedCell(row.access, as);
      const before = expected.outcome === "refused" ? await snapshotTables(db()) : undefined;
      if (as === "expired") await expireSession();
      const answer = await call(input, headersOf(as));
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

  describe("REST", () => {
    for (const route of restRoutes) {
      it(`${route.method} ${route.path}`, async () => {
        const rest = restRows[routeKey(route)];
        expect(rest, `no row in the matrix for ${routeKey(route)}`).toBeDefined();
        const row = procedureRows[rest!.procedure];
        expect(row, `no row in the matrix for procedure ${rest!.procedure}`).toBeDefined();
        await runRow(routeKey(route), row!, rest!.status, (input, headers) => callRest(route, input, headers));
      });
    }
  });

  describe("tRPC over HTTP", () => {
    for (const path of Object.keys(procedures)) {
      it(path, async () => {
        const row = procedureRows[path];
        expect(row, `no row in the matrix for procedure ${path}`).toBeDefined();
        await runRow(`/trpc/${path}`, row!, 200, (input, headers) => callTrpc(path, input, headers));
      });
    }
  });

  it("an expired session is refused while the same token, refreshed, is accepted", async () => {
    // The expired cells mean something only if the token is otherwise good.
    await expireSession();
    await db().update(sessions).set({ expiresAt: new Date(Date.now() + 60_000) }).where(eq(sessions.id, expiredSession.id));
    const res = await t().app.inject({ method: "GET", url: `${R}/cohorts`, headers: expiredAdmin.headers });
    expect(res.statusCode, res.body).toBe(200);
    await expireSession();
    const refused = await t().app.inject({ method: "GET", url: `${R}/cohorts`, headers: expiredAdmin.headers });
    expect(refused.statusCode).toBe(401);
  });
});

// The rows of the authorization matrix (test/integration/authz-matrix.test.ts), written by hand from
// docs/api.md#authentication: who may call each tRPC procedure, the records each cell's input names, and what a
// success must have done; and, per REST route, its procedure and the contract's success status.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { CATEGORIES } from "../../db/categories.js";
import { notifications, pushSubscriptions } from "../../db/schema/index.js";
import { apiKeyOf } from "./api-keys.js";
import { type TestApp, type TestUser, uniqueCohortNumber } from "./app.js";
import { auditLogRows } from "./authz-rows-audit-log.js";
import { userRows } from "./authz-rows-users.js";
import { insertChangeRequest, OTHER_ADMIN } from "./change-requests.js";
import { freshId, insertCohort, type Personas, PUSH_KEYS, registeredPro } from "./fixtures.js";
import type { Json, ProcedurePath, WireOutput } from "./rest.js";

/** Every kind of caller: no credentials, an expired session, a forged token, and three signed-in people. */
/** `impersonation`: an admin's impersonation session of `user`, which answers as `user` does, never as an admin. */
export const PERSONAS = ["anonymous", "expired", "forged", "user", "other", "admin", "impersonation"] as const;
export type Persona = (typeof PERSONAS)[number];

/**
 * Who may call: `admin` platform admins only; `user` any signed-in caller, on their own records;
 * `owner` any signed-in caller, but the record named in the input must be theirs (403 `Access denied`);
 * `impersonating` any signed-in caller, but only an impersonation session has something to act on (409).
 */
export type Access = "admin" | "user" | "owner" | "impersonating";

/** What a row prepares for one cell: the input, and checks of a successful answer's data. */
export type Prepared<Data> = {
  input?: Json;
  /** The cell's own credentials, when the persona's shared ones would not survive the call. */
  headers?: Record<string, string>;
  // A method, so that a row of any procedure's output is a row of `unknown` output too.
  after?(data: Data): Promise<void> | void;
};
/**
 * `subject` owns the records the input names: the caller itself for `user` and `admin`, and the normal
 * user for everyone else (`other` and the unauthenticated callers try someone else's real records).
 */
export type Cell = { as: Persona; subject: TestUser };
export type ProcedureRow<Data = unknown> = { access: Access; prepare(cell: Cell): Promise<Prepared<Data>> };

/** What the rows need from the test file: its app, its signed-in callers, and the push setup. */
export type MatrixContext = {
  app: TestApp;
  callers: Personas;
  /** A user no cell subscribes: the target of testPush, so no push ever leaves the process. */
  quietUserId: string;
  vapidPublicKey: string;
};

/** One row per tRPC procedure; its records are written fresh for every cell. */
export function procedureRows(context: () => MatrixContext): { [P in ProcedurePath]: ProcedureRow<WireOutput<P>> } {
  const db = () => context().app.db.db;

  async function notificationOf(owner: TestUser) {
    const { notification } = await context()
      .app.caller(context().callers.admin)
      .notifications.testInApp({ type: "system.matrix", title: "Matrix", targetUserId: owner.id });
    return notification.id;
  }

  async function notificationRow(id: string) {
    const [row] = await db().select().from(notifications).where(eq(notifications.id, id));
    return row!;
  }

  const freshEndpoint = () => `https://push.invalid/${randomBytes(8).toString("hex")}`;

  async function subscriptionOf(owner: TestUser) {
    const { subscription } = await context()
      .app.caller(owner)
      .notifications.subscribe({ endpoint: freshEndpoint(), ...PUSH_KEYS });
    return subscription;
  }

  /** markRead and remove: the caller's own notification changes; anyone else's is refused. */
  const ownNotificationChange = (column: "readAt" | "deletedAt"): ProcedureRow<{ success: boolean }> => ({
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

  /**
   * list and listSubscriptions: the subject's record (made by `recordOf`) is listed for the subject and never
   * for `other`, whose list shows only its own.
   */
  const listsOwnOnly = <Data>(
    recordOf: (owner: TestUser) => Promise<string>,
    idsOf: (data: Data) => string[],
    input?: Json,
  ): ProcedureRow<Data> => ({
    access: "user",
    prepare: async ({ as, subject }) => {
      const id = await recordOf(subject);
      return {
        ...(input ? { input } : {}),
        after: (data) => {
          const ids = idsOf(data);
          // Someone else's record never shows; the caller's own does.
          if (as === "other") expect(ids).not.toContain(id);
          else expect(ids).toContain(id);
        },
      };
    },
  });

  const none = async () => ({});
  /** A pending activation request of a cohort whose gates passed, asked by `requester` (another admin by default). */
  const pendingRequest = async (requester: { id: string; email: string } = OTHER_ADMIN) =>
    insertChangeRequest(db(), {
      cohortId: (await insertCohort(db(), { passingCheck: true })).id,
      action: "activate",
      requestedBy: requester,
    });

  return {
    "restriction.createCohort": {
      access: "admin",
      prepare: async () => ({ input: { cohortNumber: uniqueCohortNumber(), proIds: [freshId("pro")] } }),
    },
    "restriction.previewNewCohort": {
      access: "admin",
      prepare: async () => ({
        input: { cohortNumber: uniqueCohortNumber(), proIds: [freshId("pro")] },
        after: (data) => expect(data.unknownPros).toHaveLength(1),
      }),
    },
    "restriction.listCohorts": { access: "admin", prepare: none },
    "restriction.checkGates": {
      access: "admin",
      prepare: async () => ({ input: { id: (await insertCohort(db())).id, responseRate: 1, comparisonsDone: 50, legalSignoff: true } }),
    },
    "restriction.activateCohort": {
      access: "admin",
      prepare: async () => ({ input: { id: (await insertCohort(db(), { passingCheck: true })).id } }),
    },
    "restriction.rollbackCohort": {
      access: "admin",
      prepare: async () => ({ input: { id: (await insertCohort(db())).id, reason: "matrix" } }),
    },
    "restriction.listActive": { access: "admin", prepare: none },
    "restriction.getPro": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro(db()) } }) },
    "restriction.activatePro": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro(db()) } }) },
    "restriction.rollbackPro": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro(db()) } }) },
    "restriction.listGateChecks": {
      access: "admin",
      prepare: async () => ({
        input: { id: (await insertCohort(db(), { passingCheck: true })).id },
        after: (data) => expect(data).toHaveLength(1),
      }),
    },
    "restriction.previewCohort": {
      access: "admin",
      prepare: async () => ({
        input: { id: (await insertCohort(db())).id, action: "activate" },
        after: (data) => expect(data.turnOn).toHaveLength(2),
      }),
    },
    "restriction.cohortCoverage": {
      access: "admin",
      prepare: async () => ({
        input: { id: (await insertCohort(db())).id },
        after: (data) => expect(data.notRestricted).toHaveLength(2),
      }),
    },
    "restriction.proHistory": { access: "admin", prepare: async () => ({ input: { proId: await registeredPro(db()) } }) },
    "restriction.createChangeRequest": {
      access: "admin",
      prepare: async () => ({ input: { id: (await insertCohort(db(), { passingCheck: true })).id, action: "activate" } }),
    },
    "restriction.createProChangeRequest": {
      access: "admin",
      prepare: async () => ({
        input: { proId: await registeredPro(db()), action: "activate" },
        after: (data) => expect(data.changeRequest).toMatchObject({ status: "pending", action: "activate", cohortId: null }),
      }),
    },
    "restriction.listChangeRequests": { access: "admin", prepare: none },
    "restriction.getChangeRequest": { access: "admin", prepare: async () => ({ input: { id: await pendingRequest() } }) },
    "restriction.approveChangeRequest": {
      access: "admin",
      prepare: async () => ({ input: { id: await pendingRequest() }, after: (data) => expect(data.changeRequest.status).toBe("applied") }),
    },
    "restriction.rejectChangeRequest": {
      access: "admin",
      prepare: async () => ({
        input: { id: await pendingRequest(), comment: "matrix" },
        after: (data) => expect(data.changeRequest.status).toBe("rejected"),
      }),
    },
    "restriction.cancelChangeRequest": {
      access: "admin",
      // The subject asked: only the requester may cancel.
      prepare: async ({ subject }) => ({
        input: { id: await pendingRequest(subject) },
        after: (data) => expect(data.changeRequest.status).toBe("cancelled"),
      }),
    },
    "audit.list": {
      access: "admin",
      prepare: async () => ({ input: { limit: 1 }, after: (data) => expect(data.events.length).toBeLessThanOrEqual(1) }),
    },
    "apiKeys.create": {
      access: "admin",
      prepare: async () => ({
        input: { name: `matrix-${randomBytes(3).toString("hex")}`, scopes: ["flags:read"] },
        after: (data) => expect(data.secret).toMatch(/^rk_/),
      }),
    },
    "deliveries.recent": {
      access: "admin",
      prepare: async () => ({ input: { limit: 5 }, after: (data) => expect(data.events.length).toBeLessThanOrEqual(5) }),
    },
    "settings.get": {
      access: "admin",
      prepare: async () => ({ after: (data) => expect(data).toEqual({ approvals: "off", vapidConfigured: true, signUp: "open" }) }),
    },
    "apiKeys.list": { access: "admin", prepare: async () => ({ after: (data) => expect(Array.isArray(data.apiKeys)).toBe(true) }) },
    "apiKeys.revoke": {
      access: "admin",
      prepare: async () => ({
        input: { id: await apiKeyOf(db()) },
        after: (data) => expect(data.apiKey.revokedAt).not.toBeNull(),
      }),
    },

    "notifications.list": listsOwnOnly(notificationOf, (data) => data.notifications.map((n) => n.id), {}),
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
    "notifications.listSubscriptions": listsOwnOnly(
      async (owner) => (await subscriptionOf(owner)).id,
      (data) => data.subscriptions.map((s) => s.id),
    ),
    "notifications.subscribe": {
      access: "user",
      prepare: async ({ as }) => ({
        input: { endpoint: freshEndpoint(), ...PUSH_KEYS },
        // The subscription is the caller's own, whoever they are (under impersonation, the user impersonated).
        after: (data) =>
          expect(data.subscription.userId).toBe(context().callers[(as === "impersonation" ? "user" : as) as keyof Personas].id),
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
    "notifications.onUnreadCount": {
      access: "user",
      prepare: async ({ as, subject }) => {
        await notificationOf(subject);
        // The first event is the caller's own count: `other` owns none of the subject's notifications.
        // A subscription's output type is its stream; a cell sees the first event.
        const first = (data: unknown) => data as { count: number };
        return {
          after: (data) => (as === "other" ? expect(first(data)).toEqual({ count: 0 }) : expect(first(data).count).toBeGreaterThan(0)),
        };
      },
    },
    "notifications.vapidPublicKey": {
      access: "user",
      prepare: async () => ({ after: (data) => expect(data).toEqual({ publicKey: context().vapidPublicKey }) }),
    },
    "notifications.app": {
      access: "user",
      // The test app runs without APP_BASE_URL (test/integration/app-base-url.test.ts sets it).
      prepare: async () => ({ after: (data) => expect(data).toEqual({ appBaseUrl: null }) }),
    },
    "notifications.getPreferences": {
      access: "user",
      prepare: async () => ({ after: (data) => expect(Object.keys(data.preferences).sort()).toEqual([...CATEGORIES].sort()) }),
    },
    "notifications.updatePreferences": {
      access: "user",
      prepare: async () => ({
        input: { reviews: { push: false } },
        after: (data) => expect(data.preferences.reviews).toEqual({ inApp: true, push: false }),
      }),
    },
    "notifications.testInApp": {
      access: "admin",
      prepare: async ({ subject }) => ({ input: { type: "system.matrix", title: "Matrix", targetUserId: subject.id } }),
    },
    "notifications.testPush": {
      access: "admin",
      prepare: async () => ({
        input: { type: "system.matrix", title: "Matrix", targetUserId: context().quietUserId },
        after: (data) => expect(data).toMatchObject({ sent: 0, failed: 0 }),
      }),
    },
    "notifications.testListSubscriptions": { access: "admin", prepare: none },
    "notifications.testClearSubscriptions": { access: "admin", prepare: none },
    ...userRows(context),
    ...auditLogRows(context),
  };
}

export { restRows } from "./authz-rows-rest.js";

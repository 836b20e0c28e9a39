// The authorization matrix of four-eyes (docs/api.md#who-can-do-what-while-approvals-are-required), with
// APPROVALS=required: every approval-relevant act × every caller one admin could use to act alone. Each
// cell asserts the answer and what must not have happened (nothing applied, no admin made, no password
// changed); the one cell that may apply something is a second admin deciding in their own session.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { changeRequests, pros } from "../../db/schema/index.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestUser, useTestApp } from "../helpers/app.js";
import { insertChangeRequest } from "../helpers/change-requests.js";
import { freshId, insertCohort } from "../helpers/fixtures.js";
import { accountAct, impersonate, makeAdminInTable, roleOf } from "../helpers/four-eyes.js";

const t = useTestApp({ approvals: "required" });
const R = "/api/admin/restriction";

const CALLERS = ["requester", "second admin", "impersonation session", "API key", "admin made while approvals are required"] as const;
type Caller = (typeof CALLERS)[number];

/** The requester A, a second admin B, A's impersonation of U (whom A made an admin), a key, and N, whom A asked to make an admin. */
let headers: Record<Caller, Record<string, string>>;
let requester: TestUser;
/** An admin none of the callers is: the target of password and impersonation attempts. */
let otherAdmin: TestUser;

beforeAll(async () => {
  requester = await t().signUp({ admin: true });
  const second = await t().signUp({ admin: true });
  otherAdmin = await t().signUp({ admin: true });
  const u = await t().signUp();
  const asU = await impersonate(t(), requester, u);
  await makeAdminInTable(t(), u.id);
  const n = await t().signUp();
  expect((await accountAct.setRole(t(), requester, n.id, "admin")).statusCode).toBe(202);
  const key = await insertApiKey(t().db.db, { scopes: ["flags:read", "notifications:write"] });
  headers = {
    requester: requester.headers,
    "second admin": second.headers,
    "impersonation session": asU.headers,
    "API key": key.headers,
    "admin made while approvals are required": n.headers,
  };
});

const post = (as: Caller, url: string, payload: object = {}) =>
  t().app.inject({ method: "POST", url, headers: { ...headers[as], origin: TEST_ORIGIN }, payload });

const statusOf = async (id: string) =>
  (await t().db.db.select({ status: changeRequests.status }).from(changeRequests).where(eq(changeRequests.id, id)))[0]!.status;

/** A pending activation request of the requester's. */
const pendingRequest = async () =>
  insertChangeRequest(t().db.db, {
    cohortId: (await insertCohort(t().db.db, { passingCheck: true })).id,
    action: "activate",
    requestedBy: { id: requester.id, email: requester.email },
  });

type Cell = { status: number; after?: () => Promise<void> };
/** Each act: what it answers for each caller, and what it must (not) have done. */
const acts: Record<string, { cells: Record<Caller, number>; run: (as: Caller) => Promise<Cell> }> = {
  "approve the requester's change request": {
    cells: {
      requester: 403,
      "second admin": 200,
      "impersonation session": 403,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => {
      const id = await pendingRequest();
      const res = await post(as, `${R}/change-requests/${id}/approve`);
      return { status: res.statusCode, after: async () => expect(await statusOf(id)).toBe(res.statusCode === 200 ? "applied" : "pending") };
    },
  },
  "reject the requester's change request": {
    cells: {
      requester: 403,
      "second admin": 200,
      "impersonation session": 403,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => {
      const id = await pendingRequest();
      const res = await post(as, `${R}/change-requests/${id}/reject`, { comment: "matrix" });
      return {
        status: res.statusCode,
        after: async () => expect(await statusOf(id)).toBe(res.statusCode === 200 ? "rejected" : "pending"),
      };
    },
  },
  "grant admin with set-role": {
    cells: {
      requester: 202,
      "second admin": 202,
      "impersonation session": 403,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => {
      const user = await t().signUp();
      const res = await post(as, `/api/admin/users/${user.id}/role`, { role: "admin" });
      // At most a pending request: the role never changes here.
      return { status: res.statusCode, after: async () => expect(await roleOf(t(), user.id)).toBe("user") };
    },
  },
  "create a user with the admin role": {
    cells: {
      requester: 202,
      "second admin": 202,
      "impersonation session": 403,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => {
      const email = `${freshId("made")}@test.local`;
      const res = await post(as, "/api/admin/users", { email, password: TEST_PASSWORD, name: "Made", role: "admin" });
      const id = res.statusCode === 202 ? (res.json() as { data: { user: { id: string } } }).data.user.id : null;
      return { status: res.statusCode, after: async () => (id ? expect(await roleOf(t(), id)).toBe("user") : undefined) };
    },
  },
  "set another admin's password": {
    cells: {
      requester: 403,
      "second admin": 403,
      "impersonation session": 403,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => {
      const res = await post(as, `/api/admin/users/${otherAdmin.id}/password`, { password: "taken-over-password" });
      return { status: res.statusCode };
    },
  },
  "impersonate another admin": {
    cells: {
      requester: 403,
      "second admin": 403,
      "impersonation session": 403,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => ({ status: (await post(as, `/api/admin/users/${otherAdmin.id}/impersonate`)).statusCode }),
  },
  "any act through better-auth's closed admin endpoints": {
    cells: {
      requester: 404,
      "second admin": 404,
      "impersonation session": 404,
      "API key": 404,
      "admin made while approvals are required": 404,
    },
    run: async (as) => {
      const user = await t().signUp();
      const res = await post(as, "/api/auth/admin/set-role", { userId: [user.id], role: "admin" });
      return { status: res.statusCode, after: async () => expect(await roleOf(t(), user.id)).toBe("user") };
    },
  },
  "switch one pro on directly": {
    cells: {
      requester: 409,
      "second admin": 409,
      "impersonation session": 409,
      "API key": 401,
      "admin made while approvals are required": 403,
    },
    run: async (as) => {
      const proId = freshId("pro");
      await t().db.db.insert(pros).values({ id: proId, name: proId });
      const res = await post(as, `${R}/${encodeURIComponent(proId)}/activate`);
      return {
        status: res.statusCode,
        after: async () => expect((await t().caller(requester).restriction.getPro({ proId })).restrictionActive).toBe(false),
      };
    },
  },
};

describe("four-eyes authorization matrix (APPROVALS=required)", () => {
  for (const [act, { cells, run }] of Object.entries(acts)) {
    describe(act, () => {
      for (const as of CALLERS) {
        it(`× ${as}: ${cells[as]}`, async () => {
          const cell = await run(as);
          expect(cell.status).toBe(cells[as]);
          await cell.after?.();
        });
      }
    });
  }

  it("the other admin's password still signs in, and the admin made while approvals are required is not one", async () => {
    const res = await t().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { email: otherAdmin.email, password: TEST_PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const cohorts = await t().app.inject({
      method: "GET",
      url: `${R}/cohorts`,
      headers: headers["admin made while approvals are required"],
    });
    expect(cohorts.statusCode).toBe(403);
  });
});

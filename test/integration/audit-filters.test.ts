// docs/api.md#audit-trail: the audit log's everyday questions. "What happened to this pro?" (`proId`: its
// own events and the cohort changes that switched its flag) and "what did this admin do?" (`actorEmail` in
// any case, and `actorId` or `actorEmail` also finding what an admin did under an impersonation session).
import { describe, expect, it } from "vitest";
import { createContextInner } from "../../server/context.js";
import { createCaller } from "../../server/routers/index.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { activeCohort, newCohort, newProIds, registerPros } from "../helpers/fixtures.js";
import type { ApiError, WireOutput } from "../helpers/rest.js";

const t = useTestApp();

type AuditPage = WireOutput<"audit.list">;

const get = async (user: TestUser, query: Record<string, string>) => {
  const res = await t().app.inject({ method: "GET", url: `/api/admin/audit?${new URLSearchParams(query)}`, headers: user.headers });
  const body = res.json() as { data: AuditPage; error?: ApiError };
  return { status: res.statusCode, data: body.data, error: body.error };
};

/** The caller of `user` in a session an admin opened by impersonating them (better-auth's admin plugin). */
function impersonating(admin: TestUser, user: TestUser) {
  const session = { id: "impersonation", expiresAt: new Date(Date.now() + 60_000), impersonatedBy: { id: admin.id, email: admin.email } };
  return createCaller(createContextInner({ db: t().db.db, push: t().push }, { user, session }));
}

describe("GET /api/admin/audit?proId=", () => {
  it("finds the pro's own events and every cohort change that switched its flag, and nothing else", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const [pro, neighbour] = newProIds(2) as [string, string];
    await registerPros(t().db.db, [pro, neighbour]); // per-pro changes need a known pro
    const first = await activeCohort(api, [pro, neighbour]);
    const second = await activeCohort(api, [pro]);
    await api.rollbackCohort({ id: first.id, reason: "complaints" }); // switches pro off although cohort 2 holds it
    await api.activatePro({ proId: pro });
    await api.rollbackPro({ proId: neighbour });
    const untouched = await activeCohort(api); // other pros only

    const { status, data } = await get(admin, { proId: pro });
    expect(status).toBe(200);
    // Exactly the pro's history (cohort 2's activation wrote its flag, on → on, naming cohort 2).
    expect(data.events.map((e) => [e.action, e.target.id])).toEqual([
      ["pro.activate", pro],
      ["cohort.rollback", first.id],
      ["cohort.activate", second.id],
      ["cohort.activate", first.id],
    ]);
    const history = await api.proHistory({ proId: pro });
    expect(data.events.map((e) => e.id)).toEqual(history.changes.map((c) => c.auditEventId));
    expect(data.events.some((e) => e.target.id === untouched.id)).toBe(false);

    const narrowed = await get(admin, { proId: pro, action: "cohort.rollback" });
    expect(narrowed.data.events.map((e) => e.reason)).toEqual(["complaints"]);
    expect((await get(admin, { proId: "pro-never-heard-of" })).data).toEqual({ events: [], nextCursor: null });
  });
});

describe("GET /api/admin/audit?actorEmail= and actorId=", () => {
  it("find an admin's events by email in any case, including those made while impersonating", async () => {
    const admin = await t().signUp({ admin: true });
    const colleague = await t().signUp({ admin: true });
    const own = await newCohort(t().caller(admin).restriction);
    const asColleague = await newCohort(impersonating(admin, colleague).restriction);
    const colleagues = await newCohort(t().caller(colleague).restriction);

    const byEmailOrId: Record<string, string>[] = [{ actorEmail: admin.email.toUpperCase() }, { actorId: admin.id }];
    for (const query of byEmailOrId) {
      const { status, data } = await get(admin, { ...query, action: "cohort.create" });
      expect(status).toBe(200);
      expect(data.events.map((e) => e.target.id)).toEqual([asColleague.id, own.id]);
      expect(data.events[0]).toMatchObject({ actor: { id: colleague.id }, impersonatedBy: { id: admin.id, email: admin.email } });
    }
    // The colleague's view of it: both the acts in their name.
    const theirs = await get(admin, { actorEmail: colleague.email, action: "cohort.create" });
    expect(theirs.data.events.map((e) => e.target.id)).toEqual([colleagues.id, asColleague.id]);
    expect((await get(admin, { actorEmail: "nobody@example.com" })).data.events).toEqual([]);
  });

  it("refuses an empty or overlong email with a 400 naming the field, as every bad filter", async () => {
    const admin = await t().signUp({ admin: true });
    for (const actorEmail of ["", `${"a".repeat(320)}@x.io`]) {
      const { status, error } = await get(admin, { actorEmail });
      expect(status).toBe(400);
      expect(error?.details?.map((d) => d.field)).toEqual(["actorEmail"]);
    }
  });
  // issue X: year 0000 passed the ISO check, and PostgreSQL (which has no year 0) answered 500.
  it("refuses an instant outside the years 0001 to 9999 with a 400 naming the field, on both doors", async () => {
    const admin = await t().signUp({ admin: true });
    for (const [field, value] of [
      ["until", "0000-01-01T00:00:00Z"],
      ["since", "0000-12-31T23:59:59.999Z"],
      ["since", "0001-01-01T00:30:00+01:00"],
      ["until", "9999-12-31T23:59:59-01:00"],
    ] as const) {
      const { status, error } = await get(admin, { [field]: value });
      expect({ value, status }).toEqual({ value, status: 400 });
      expect(error?.details).toEqual([{ field, message: "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z" }]);
      await expect(
        createCaller(createContextInner({ db: t().db.db, push: t().push }, { user: admin })).audit.list({ [field]: value }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
    for (const [field, value] of [
      ["since", "0001-01-01T00:00:00Z"],
      ["until", "9999-12-31T23:59:59.999Z"],
    ] as const) {
      expect((await get(admin, { [field]: value })).status).toBe(200);
    }
  });
});

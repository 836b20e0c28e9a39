// docs/api.md#mount-points: every documented path answers the same with one trailing slash, and a pro with no
// stored status reads as exactly {proId, restrictionActive: false}. The trailing-slash check walks the
// route table, so a new route is covered without a new line here.
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pros } from "../../db/schema/index.js";
import { type RestRoute, restRoutes } from "../../server/rest/routes.js";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";

const t = useTestApp();

describe("documented paths", () => {
  /** The route's path with its parameters filled with ids that exist nowhere. */
  const concrete = (route: RestRoute) =>
    route.path.replace(":proId", `pro-nowhere-${randomBytes(4).toString("hex")}`).replace(":id", randomUUID());

  /**
   * One request per route whose answer does not depend on having been sent before: reads, and writes
   * refused by validation (an empty body) or naming ids that do not exist.
   */
  function requestFor(route: RestRoute, url: string, admin: TestUser) {
    const body = route.input === "body" ? { payload: {} } : {};
    return { method: route.method, url, headers: admin.headers, ...body };
  }

  it.each(restRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s answers the same with a trailing slash",
    async (_name, route) => {
      const admin = await t().signUp({ admin: true });
      const url = concrete(route);
      const without = await t().app.inject(requestFor(route, url, admin));
      const withSlash = await t().app.inject(requestFor(route, `${url}/`, admin));
      expect(withSlash.statusCode, withSlash.body).toBe(without.statusCode);
      expect(withSlash.json()).toEqual(without.json());
      expect(without.json().error?.message ?? "").not.toMatch(/^Route /);
    },
  );

  it("GET /api/admin/restriction/ is the active-pro list, GET /api/notifications/ the inbox, with a query too", async () => {
    const admin = await t().signUp({ admin: true });
    const proId = `pro-${randomBytes(6).toString("hex")}`;
    await t().db.db.insert(pros).values({ id: proId, name: "Listed" });
    await t().caller(admin).restriction.activatePro({ proId });

    const active = await t().app.inject({ method: "GET", url: "/api/admin/restriction/", headers: admin.headers });
    expect(active.statusCode).toBe(200);
    expect((active.json().data as { proId: string }[]).map((s) => s.proId)).toContain(proId);

    const inbox = await t().app.inject({ method: "GET", url: "/api/notifications/?page=2&limit=5", headers: admin.headers });
    expect(inbox.statusCode).toBe(200);
    expect(inbox.json().data).toMatchObject({ notifications: [], page: 2, has_more: false });
  });

  it("POST /api/admin/restriction/cohorts/ creates a cohort", async () => {
    const admin = await t().signUp({ admin: true });
    const res = await t().app.inject({
      method: "POST",
      url: "/api/admin/restriction/cohorts/",
      headers: admin.headers,
      payload: { cohortNumber: uniqueCohortNumber(), proIds: ["pro-a"] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.status).toBe("pending");
  });
});

describe("a pro with no stored status", () => {
  it("answers exactly {proId, restrictionActive: false} over REST, and the same through tRPC", async () => {
    const admin = await t().signUp({ admin: true });
    const proId = `pro-unknown-${randomBytes(4).toString("hex")}`;
    const res = await t().app.inject({ method: "GET", url: `/api/admin/restriction/${proId}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toStrictEqual({ success: true, data: { proId, restrictionActive: false } });
    expect(await t().caller(admin).restriction.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
  });

  it("keeps proId, restrictionActive, cohortId and updatedAt once a status is stored", async () => {
    const admin = await t().signUp({ admin: true });
    const proId = `pro-${randomBytes(6).toString("hex")}`;
    await t().db.db.insert(pros).values({ id: proId, name: "Stored" });
    await t().caller(admin).restriction.rollbackPro({ proId });
    const res = await t().app.inject({ method: "GET", url: `/api/admin/restriction/${proId}`, headers: admin.headers });
    expect(Object.keys(res.json().data).sort()).toEqual(["cohortId", "proId", "restrictionActive", "updatedAt"]);
    expect(res.json().data).toMatchObject({ proId, restrictionActive: false, cohortId: null });
  });
});

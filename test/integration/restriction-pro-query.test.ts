// Pro ids that are path words (issue AD.9): a pro named `cohorts` or `change-requests` cannot be addressed by
// /api/admin/restriction/:proId, where those words are the cohorts' and change requests' own paths. The query
// form /api/admin/pro-restriction?proId= takes any id; the /:proId paths are unchanged.
import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";
import { newProIds } from "../helpers/fixtures.js";
import type { Json } from "../helpers/rest.js";
import { expectStatus, RESTRICTION, restrictionRest } from "../helpers/restriction-rest.js";

const PRO = "/api/admin/pro-restriction";
const q = (proId: string) => `?${new URLSearchParams({ proId })}`;

describe("pro ids that are path words, through the query form", () => {
  const t = useTestApp();
  const { ok, fails, admin, registerPros } = restrictionRest(t);

  it("the /:proId path cannot address a pro named cohorts: it is the cohort list", async () => {
    const user = await admin();
    expect(Array.isArray(await ok(user, { method: "GET", url: `${RESTRICTION}/cohorts` }))).toBe(true);
  });

  it.each(["cohorts", "change-requests"])("a pro named %j is read, activated, rolled back and its history read", async (proId) => {
    const user = await admin();
    await registerPros([proId]);
    expect(await ok(user, { method: "GET", url: `${PRO}${q(proId)}` })).toStrictEqual({ proId, restrictionActive: false });
    const on = await ok(user, { method: "POST", url: `${PRO}/activate${q(proId)}` });
    expectStatus(on);
    expect(on).toMatchObject({ proId, restrictionActive: true, cohortId: null });
    expect(await ok(user, { method: "GET", url: `${PRO}${q(proId)}` })).toEqual(on);
    const off = await ok(user, { method: "POST", url: `${PRO}/rollback${q(proId)}` });
    expect(off).toMatchObject({ proId, restrictionActive: false, cohortId: null });
    const history = await ok<{ proId: string; changes: Json[] }>(user, { method: "GET", url: `${PRO}/history${q(proId)}` });
    expect(history.proId).toBe(proId);
    expect(history.changes.map((c) => c.restrictionActive)).toEqual([false, true]);
  });

  it("a change request for a pro named cohorts is filed with the id in the body", async () => {
    const user = await admin();
    const answer = await ok<{ changeRequest: Json }>(
      user,
      { method: "POST", url: `${PRO}/change-requests`, payload: { proId: "cohorts", action: "activate", reason: "a path word" } },
      201,
    );
    expect(answer.changeRequest).toMatchObject({ proId: "cohorts", action: "activate", status: "pending" });
  });

  it("takes any id, the URL-special characters escaped once; the /:proId path answers the same", async () => {
    const user = await admin();
    const [proId] = newProIds(1) as [string];
    expect(await ok(user, { method: "GET", url: `${PRO}${q(`${proId}/x?y#z`)}` })).toStrictEqual({
      proId: `${proId}/x?y#z`,
      restrictionActive: false,
    });
    expect(await ok(user, { method: "GET", url: `${PRO}${q(proId)}` })).toEqual(
      await ok(user, { method: "GET", url: `${RESTRICTION}/${proId}` }),
    );
  });

  it("refuses a missing or blank proId naming it, and an unregistered pro with 404", async () => {
    const user = await admin();
    for (const url of [PRO, `${PRO}?proId=`, `${PRO}/history?proId=%20`, `${PRO}/activate`]) {
      const error = await fails(user, { method: url.includes("activate") ? "POST" : "GET", url }, 400, "VALIDATION_ERROR");
      expect(error.details?.map((d) => d.field)).toEqual(["proId"]);
    }
    await fails(
      user,
      { method: "POST", url: `${PRO}/activate${q("no-such-pro-anywhere")}` },
      404,
      "NOT_FOUND",
      "Pro no-such-pro-anywhere not found",
    );
  });

  it("is for admins only, as the /:proId paths are", async () => {
    const user = await t().signUp();
    await fails(user, { method: "GET", url: `${PRO}${q("cohorts")}` }, 403, "FORBIDDEN");
    await fails(null, { method: "GET", url: `${PRO}${q("cohorts")}` }, 401, "UNAUTHORIZED");
  });
});

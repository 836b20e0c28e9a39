import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

describe("smoke", () => {
  const t = useTestApp();
  it("signs up an admin and creates a cohort over REST", async () => {
    const admin = await t().signUp({ admin: true });
    const res = await t().app.inject({
      method: "POST",
      url: "/api/admin/restriction/cohorts",
      headers: admin.headers,
      payload: { cohortNumber: 7, proIds: ["a"] },
    });
    expect(res.statusCode).toBe(201);
    const list = await t().caller(admin).restriction.listCohorts();
    expect(list.map((c) => c.cohortNumber)).toEqual([7]);
  });
});

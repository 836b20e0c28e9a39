// docs/api.md#settings: GET /api/admin/settings tells the console the modes the service runs in, to admins
// only. The authorization matrix reads it with APPROVALS off and VAPID keys set; here the other way round.
import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

describe("the service's modes (APPROVALS=required, no VAPID keys)", () => {
  const t = useTestApp({ approvals: "required" });
  const modes = { approvals: "required", vapidConfigured: false, signUp: "open" };

  it("answers an admin over REST and tRPC", async () => {
    const admin = await t().signUp({ admin: true });
    const res = await t().app.inject({ method: "GET", url: "/api/admin/settings", headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, data: modes });
    expect(await t().caller(admin).settings.get()).toEqual(modes);
  });

  it("refuses anyone else", async () => {
    const user = await t().signUp();
    expect((await t().app.inject({ method: "GET", url: "/api/admin/settings", headers: user.headers })).statusCode).toBe(403);
    expect((await t().app.inject({ method: "GET", url: "/api/admin/settings" })).statusCode).toBe(401);
  });
});

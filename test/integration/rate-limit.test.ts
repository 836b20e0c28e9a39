// The admin test-push limit is procedure middleware: it counts per user, whichever door and session the
// calls come through, and answers 429 with Retry-After on both doors.

import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { useTestApp } from "../helpers/app.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.com" };

describe("test-push rate limit", () => {
  const t = useTestApp({ limits: { testPush: { max: 2, timeWindowMs: 60_000 } }, push: { vapid } });
  const json = { "content-type": "application/json" };

  it("counts per user across sessions, and a refused tRPC call says when to retry", async () => {
    const admin = await t().signUp({ admin: true });
    const { token } = await t().auth.api.signInEmail({ body: { email: admin.email, password: "correct-horse-battery" } });
    const secondSession = { authorization: `Bearer ${token}` };
    const body = { type: "system.test", title: "Ping", targetUserId: admin.id };
    const trpc = (headers: Record<string, string>) =>
      t().app.inject({ method: "POST", url: "/trpc/notifications.testPush", headers: { ...headers, ...json }, payload: { json: body } });

    expect((await trpc(admin.headers)).statusCode).toBe(200);
    expect((await trpc(secondSession)).statusCode).toBe(200);
    const limited = await trpc(admin.headers);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.json().error.json).toMatchObject({
      message: "Too many requests; try again later",
      data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, appCode: "TOO_MANY_REQUESTS" },
    });
    const rest = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: { ...secondSession, ...json },
      payload: body,
    });
    expect(rest.statusCode).toBe(429);
    expect(Number(rest.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("does not count a caller the procedure refuses before the limit (not an admin)", async () => {
    const user = await t().signUp();
    for (let i = 0; i < 3; i++) {
      const res = await t().app.inject({
        method: "POST",
        url: "/api/notifications/test/push",
        headers: { ...user.headers, ...json },
        payload: { type: "system.test", title: "Ping", targetUserId: user.id },
      });
      expect(res.statusCode).toBe(403);
    }
  });
});

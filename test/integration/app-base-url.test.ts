// APP_BASE_URL reaches every signed-in user (issue AD.3): the inbox is theirs, not only admins', so the app's
// origin is read at GET /api/notifications/app (tRPC notifications.app), next to the VAPID public key.
import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

const readApp = async (t: ReturnType<typeof useTestApp>, headers?: Record<string, string>) =>
  t().app.inject({ method: "GET", url: "/api/notifications/app", headers });

describe("APP_BASE_URL set", () => {
  const t = useTestApp({ appBaseUrl: "https://app.example.com" });

  it("answers the app's origin to an ordinary user, by REST and by tRPC", async () => {
    const user = await t().signUp();
    const res = await readApp(t, user.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { appBaseUrl: "https://app.example.com" } });
    const caller = t().caller(user);
    expect(await caller.notifications.app()).toEqual({ appBaseUrl: "https://app.example.com" });
  });

  it("answers 401 without a session: the origin is for the inbox, which needs one", async () => {
    const res = await readApp(t);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe("UNAUTHORIZED");
  });
});

describe("APP_BASE_URL unset", () => {
  const t = useTestApp();

  it("answers null: the console shows a notification's path as text", async () => {
    const user = await t().signUp();
    const res = await readApp(t, user.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { appBaseUrl: null } });
  });
});

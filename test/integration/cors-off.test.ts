// With no CORS_ORIGINS and no APP_BASE_URL no origin may call, and the service registers no CORS plugin
// (server/app.ts): answers carry no CORS header, and a preflight is the envelope's 404, as the plugin answered
// it when CORS was off. The rest of every answer is unchanged: its security headers and its request id.
import { describe, expect, it } from "vitest";
import { TEST_ORIGIN, useTestApp } from "../helpers/app.js";

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith("access-control-"));

describe("CORS off (no CORS_ORIGINS, no APP_BASE_URL)", () => {
  const t = useTestApp({ corsOrigins: [] });

  it("answers a preflight with the envelope's 404, its security headers and request id, and no CORS header", async () => {
    const res = await t().app.inject({
      method: "OPTIONS",
      url: "/api/notifications",
      headers: { origin: TEST_ORIGIN, "access-control-request-method": "GET" },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(corsHeaders(res.headers)).toEqual([]);
  });

  it("gives a request from another origin its answer and no CORS header", async () => {
    const res = await t().app.inject({ method: "GET", url: "/health/live", headers: { origin: "http://elsewhere.test" } });
    expect(res.statusCode).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
  });
});

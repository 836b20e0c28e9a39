// The precomputed security headers are exactly what helmet itself sets on a real response.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import helmet from "helmet";
import { describe, expect, it } from "vitest";
import { apiSecurityHeaders, isApiUrl, securityHeaders } from "../../server/http/security-headers.js";

describe("securityHeaders", () => {
  it("equals helmet's defaults applied to a Node response", () => {
    const request = new IncomingMessage(new Socket());
    const response = new ServerResponse(request);
    helmet()(request, response, () => {});
    const expected = Object.fromEntries(Object.entries(response.getHeaders()).map(([k, v]) => [k, String(v)]));
    expect(securityHeaders()).toEqual(expected);
    expect(Object.keys(expected)).toContain("content-security-policy");
  });
});

describe("apiSecurityHeaders: the JSON API's set (OWASP's REST Security Cheat Sheet)", () => {
  it("keeps helmet's transport, sniffing and resource policies, and refuses loading anything or being framed", () => {
    const page = securityHeaders();
    expect(apiSecurityHeaders()).toEqual({
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
      "cross-origin-resource-policy": page["cross-origin-resource-policy"],
      "strict-transport-security": page["strict-transport-security"],
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    });
  });

  it("is for the API's paths; pages and better-auth's answers keep helmet's", () => {
    for (const url of [
      "/api/notifications",
      "/api/admin/restriction/p1?x=1",
      "/ofrep/v1/evaluate/flags",
      "/trpc/notifications.list",
      "/health/live",
    ]) {
      expect(isApiUrl(url), url).toBe(true);
    }
    for (const url of [
      "/",
      "/docs",
      "/docs/static/index.html",
      "/openapi.json",
      "/api/auth/get-session",
      "/api",
      "/apix/y",
      "//api/notifications",
    ]) {
      expect(isApiUrl(url), url).toBe(false);
    }
  });
});

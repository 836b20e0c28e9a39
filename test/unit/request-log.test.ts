import { describe, expect, it } from "vitest";
import { isCredentialName, loggedUrl } from "../../server/observability/request-log.js";
import { restRoutes } from "../../server/rest/routes.js";

describe("loggedUrl", () => {
  it("replaces the value of a credential parameter however its name is written, and keeps the rest as sent", () => {
    expect(loggedUrl("/ofrep/v1/events?token=abc.def")).toBe("/ofrep/v1/events?token=[redacted]");
    expect(loggedUrl("/x?a=1&%74oken=abc&TOKEN=d&tok+en=e&b=%20")).toBe("/x?a=1&%74oken=[redacted]&TOKEN=[redacted]&tok+en=e&b=%20");
    expect(loggedUrl("/x?token=a&token=b")).toBe("/x?token=[redacted]&token=[redacted]");
    expect(loggedUrl("/x?%E0%A4%A=secret")).toBe("/x?%E0%A4%A=[redacted]");
  });

  it("leaves a URL without credential parameters alone", () => {
    for (const url of ["/api/notifications?page=2&search=a%20b", "/health/live", "/x?token", "/x?"]) expect(loggedUrl(url)).toBe(url);
  });

  it("redacts any credential-looking parameter, not only the service's own token (issue X)", () => {
    expect(loggedUrl("/api/notifications?api_key=rn_live_secret&page=2")).toBe("/api/notifications?api_key=[redacted]&page=2");
    for (const name of [
      "api_key",
      "apikey",
      "API-Key",
      "x-api-key",
      "key",
      "token",
      "access_token",
      "refresh_token",
      "id_token",
      "secret",
      "client_secret",
      "password",
      "passwd",
      "pwd",
      "pass",
      "session",
      "session_id",
      "sessionToken",
      "auth",
      "authorization",
      "sig",
      "signature",
      "jwt",
      "bearer",
      "credentials",
      "cookie",
      "%61pi_key",
    ]) {
      expect(isCredentialName(name), name).toBe(true);
      expect(loggedUrl(`/x?${name}=s3cr3t`), name).toBe(`/x?${name}=[redacted]`);
    }
  });

  it("keeps every query parameter of the service's own routes", () => {
    const names = restRoutes.flatMap((route) => Object.keys((route as { query?: object }).query ?? {}));
    expect(names).toContain("search");
    for (const name of names) expect(isCredentialName(name), name).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { loggedUrl } from "../../server/observability/request-log.js";

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
});

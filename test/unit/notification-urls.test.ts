// The links a notification may carry (server/notifications/urls.ts): an absolute https: URL, or a
// path on the app's own origin. Anything a browser could run or send elsewhere is refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isNotificationUrl } from "../../server/notifications/urls.js";

describe("isNotificationUrl", () => {
  it.each([
    "https://example.com",
    "https://example.com/inbox/1?x=2#top",
    "HTTPS://Example.COM/x",
    "/",
    "/inbox",
    "/inbox/48213?tab=all#m1",
    "/a%20b",
  ])("accepts %j", (url) => {
    expect(isNotificationUrl(url)).toBe(true);
  });

  it.each([
    ["a script", "javascript:alert(1)"],
    ["a script, mixed case", "JaVaScRiPt:alert(1)"],
    ["a script behind white space", " javascript:alert(1)"],
    ["a data URL", "data:text/html,<script>alert(1)</script>"],
    ["a vbscript URL", "vbscript:msgbox(1)"],
    ["plain http", "http://example.com/"],
    ["another scheme", "ftp://example.com/"],
    ["https without a host", "https:///inbox"],
    ["https without slashes", "https:example.com"],
    ["a scheme-relative URL", "//evil.example/x"],
    ["a backslash a browser reads as //", "/\\evil.example"],
    ["a tab a browser drops, leaving //", "/\t/evil.example"],
    ["a newline a browser drops, leaving //", "/\n/evil.example"],
    ["a relative path", "inbox/1"],
    ["a dot path", "../inbox"],
    ["a fragment only", "#top"],
    ["empty", ""],
  ])("refuses %s", (_what, url) => {
    expect(isNotificationUrl(url)).toBe(false);
  });

  it("accepts nothing that a browser would resolve off the app's origin, or to a scheme other than https", () => {
    const piece = fc.constantFrom("/", "\\", ":", "\t", "\n", " ", ".", "%2f", "@", "javascript:", "data:", "https:", "//", "a", "?", "#");
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((parts) => parts.join("")),
        (url) => {
          if (!isNotificationUrl(url)) return;
          const resolved = new URL(url, "https://app.invalid");
          expect(resolved.protocol).toBe("https:");
          if (url.startsWith("/")) expect(resolved.origin).toBe("https://app.invalid");
          else expect(url.toLowerCase().startsWith("https://")).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("accepts every path made of URL path characters", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{1,12}$/);
    fc.assert(fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => isNotificationUrl(`/${segments.join("/")}`)));
  });
});

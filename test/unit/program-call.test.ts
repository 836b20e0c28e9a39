// isProgramCall (server/http/trusted-writes.ts): which calls to /api/auth/* reach better-auth as curl's do.
// Anything a browser sends with a POST (a cookie, Origin, Referer or Sec-Fetch-Site) keeps the origin check.
import { describe, expect, it } from "vitest";
import { isProgramCall } from "../../server/http/trusted-writes.js";

describe("isProgramCall", () => {
  it("is a program's call with no cookie, Origin, Referer or Sec-Fetch-Site: Node's fetch, curl", () => {
    expect(isProgramCall({ "sec-fetch-mode": "cors", "user-agent": "node" })).toBe(true);
    expect(isProgramCall({ "user-agent": "curl/8.5.0", authorization: "Bearer x" })).toBe(true);
  });

  it("is a browser's, or may be, with any of them", () => {
    const browserSigns: Record<string, string>[] = [
      { cookie: "theme=dark" },
      { origin: "https://evil.example" },
      { origin: "null" },
      { referer: "https://evil.example/page" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-origin" },
    ];
    for (const sign of browserSigns)
      expect({ sign, program: isProgramCall({ "sec-fetch-mode": "cors", ...sign }) }).toEqual({ sign, program: false });
  });
});

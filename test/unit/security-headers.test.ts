// The precomputed security headers are exactly what helmet itself sets on a real response.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import helmet from "helmet";
import { describe, expect, it } from "vitest";
import { securityHeaders } from "../../server/http/security-headers.js";

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

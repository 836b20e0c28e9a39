import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SESSION_LIFETIME } from "../../server/auth/better-auth.js";
import { dueForRefresh } from "../../server/auth/session.js";
import { bearerSessionToken } from "../../server/auth/session-token.js";

const SECRET = "unit-secret";
const TOKEN = "AbCdEf0123456789";
// better-auth signs cookies as `token.` + HMAC-SHA256 in padded base64, URL-encoded in the cookie.
const signature = createHmac("sha256", SECRET).update(TOKEN).digest("base64");

describe("bearerSessionToken reads a bearer header as better-auth's bearer plugin does", () => {
  it.each([
    ["a raw token", `Bearer ${TOKEN}`],
    ["the scheme in any case", `bEaReR ${TOKEN}`],
    ["surrounding blanks", `Bearer   ${TOKEN}  `],
    ["the signed cookie value", `Bearer ${TOKEN}.${signature}`],
    ["the signed cookie value, URL-encoded", `Bearer ${encodeURIComponent(`${TOKEN}.${signature}`)}`],
    ["the signature unpadded and base64url", `Bearer ${TOKEN}.${createHmac("sha256", SECRET).update(TOKEN).digest("base64url")}`],
  ])("accepts %s", (_, header) => {
    expect(bearerSessionToken(header, SECRET)).toBe(TOKEN);
  });

  it.each([
    ["no header", undefined],
    ["another scheme", `Basic ${TOKEN}`],
    ["an empty token", "Bearer    "],
    ["a wrong signature", `Bearer ${TOKEN}.${signature.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`],
    ["a signature made with another secret", `Bearer ${TOKEN}.${createHmac("sha256", "other").update(TOKEN).digest("base64")}`],
    ["a signature of another token", `Bearer x${TOKEN}.${signature}`],
    ["an empty token before the signature", `Bearer .${signature}`],
  ])("refuses %s", (_, header) => {
    expect(bearerSessionToken(header, SECRET)).toBeNull();
  });
});

describe("dueForRefresh matches better-auth's daily session extension", () => {
  const now = Date.UTC(2026, 10, 22, 12);
  const day = 24 * 60 * 60 * 1000;
  const lifetime = SESSION_LIFETIME.expiresInSeconds * 1000;

  it("is false for a session made or refreshed less than a day ago", () => {
    expect(dueForRefresh(new Date(now + lifetime), now)).toBe(false);
    expect(dueForRefresh(new Date(now + lifetime - day + 1), now)).toBe(false);
  });

  it("is true once a day has passed since", () => {
    expect(dueForRefresh(new Date(now + lifetime - day), now)).toBe(true);
    expect(dueForRefresh(new Date(now + 1000), now)).toBe(true);
  });
});

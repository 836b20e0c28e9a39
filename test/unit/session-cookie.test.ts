// The session cookie read without better-auth (server/auth/session-token.ts): what it takes must be what
// better-call's getSignedCookie would take from the same header, and whatever it is unsure of is left to
// better-auth (null). better-call's own parser is the oracle.
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";
import { parseCookies } from "better-call";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cookieSessionToken, REMEMBERED_LENGTH, REMEMBERED_VALUES, sessionTokenReader } from "../../server/auth/session-token.js";

const SECRET = "unit-secret";
const NAME = "better-auth.session_token";
const signed = (token: string, secret = SECRET) => `${token}.${createHmac("sha256", secret).update(token).digest("base64")}`;
const cookieOf = (token: string, name = NAME) => `${name}=${encodeURIComponent(signed(token))}`;

/** What better-call's getSignedCookie answers for `name` in this header (its parser, its signature rule). */
function betterCallToken(header: string, name: string, secret: string): string | null {
  const value = parseCookies(header).get(name);
  if (!value) return null;
  const dot = value.lastIndexOf(".");
  if (dot < 1) return null;
  const [token, signature] = [value.slice(0, dot), value.slice(dot + 1)];
  if (signature.length !== 44 || !signature.endsWith("=")) return null;
  const expected = createHmac("sha256", secret).update(token).digest();
  return Buffer.from(signature, "base64").equals(expected) ? token : null;
}

describe("cookieSessionToken reads the signed session cookie as better-call does", () => {
  it("is checked against the copy of better-call that better-auth runs", () => {
    const ours = createRequire(import.meta.url).resolve("better-call");
    const betterAuths = createRequire(createRequire(import.meta.url).resolve("better-auth")).resolve("better-call");
    expect(ours).toBe(betterAuths);
  });

  it.each([
    ["the cookie alone", cookieOf("AbCdEf0123456789")],
    ["among others", `theme=dark; ${cookieOf("AbCdEf0123456789")}; lang=en`],
    ["after a tab", `theme=dark;\t${cookieOf("AbCdEf0123456789")}`],
    ["not URL-encoded", `${NAME}=${signed("AbCdEf0123456789")}`],
  ])("takes %s", (_, header) => {
    expect(cookieSessionToken(header, NAME, SECRET)).toBe("AbCdEf0123456789");
    expect(betterCallToken(header, NAME, SECRET)).toBe("AbCdEf0123456789");
  });

  it.each([
    ["no header", undefined],
    ["no session cookie", "theme=dark"],
    ["an unsigned token", `${NAME}=AbCdEf0123456789`],
    ["a signature made with another secret", `${NAME}=${encodeURIComponent(signed("AbCdEf0123456789", "other"))}`],
    ["a signature of another token", `${NAME}=${encodeURIComponent(`x${signed("AbCdEf0123456789")}`)}`],
    ["the name twice", `${cookieOf("AbCdEf0123456789")}; ${cookieOf("ZyXwVu9876543210")}`],
    ["the name inside another cookie's value", `x=${cookieOf("AbCdEf0123456789")}`],
    ["only the https name when the name has no prefix", `__Secure-${cookieOf("AbCdEf0123456789")}`],
    ["a quoted value", `${NAME}="${signed("AbCdEf0123456789")}"`],
  ])("leaves %s to better-auth", (_, header) => {
    expect(cookieSessionToken(header, NAME, SECRET)).toBeNull();
  });

  // Headers built from the session cookie (good, forged, other names, prefixes), other cookies, blanks,
  // quotes and stray separators, in any order: whenever the reader takes a token, better-call takes the same.
  const token = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
  const piece = fc.oneof(
    token.map((t) => cookieOf(t)),
    token.map((t) => `${NAME}=${signed(t)}`),
    token.map((t) => `${NAME}=${encodeURIComponent(signed(t, "other"))}`),
    token.map((t) => `${NAME}="${encodeURIComponent(signed(t))}"`),
    token.map((t) => `__Secure-${cookieOf(t)}`),
    token.map((t) => `x=${cookieOf(t)}`),
    fc.constantFrom("theme=dark", "a", "=b", "", " ", "\t", "c=d=e", `${NAME}=`, `${NAME}`, "%zz=1"),
  );
  const header = fc
    .array(fc.tuple(piece, fc.constantFrom(";", "; ", ";\t", " ;")), { maxLength: 5 })
    .map((parts) => parts.map(([p, sep]) => p + sep).join(""));

  it("never takes a token better-call would not (property)", () => {
    fc.assert(
      fc.property(header, (h) => {
        const ours = cookieSessionToken(h, NAME, SECRET);
        if (ours !== null) expect(ours).toBe(betterCallToken(h, NAME, SECRET));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes the token whenever the header holds one good session cookie and nothing odd (property)", () => {
    const others = fc.array(fc.constantFrom("theme=dark", "lang=en", "a=b"), { maxLength: 3 });
    fc.assert(
      fc.property(token, others, others, (t, before, after) => {
        const h = [...before, cookieOf(t), ...after].join("; ");
        expect(cookieSessionToken(h, NAME, SECRET)).toBe(t);
      }),
    );
  });
});

describe("sessionTokenReader remembers the values it found good, and only those", () => {
  it("answers as the plain readers, again and again", () => {
    const reader = sessionTokenReader(SECRET);
    const bearer = `Bearer ${encodeURIComponent(signed("AbCdEf0123456789"))}`;
    for (let i = 0; i < 3; i++) {
      expect(reader.bearer(bearer)).toBe("AbCdEf0123456789");
      expect(reader.cookie(cookieOf("AbCdEf0123456789"), NAME)).toBe("AbCdEf0123456789");
      expect(reader.bearer("Bearer raw-token")).toBe("raw-token");
    }
  });

  it("refuses a forged value every time, and a good value under another name", () => {
    const reader = sessionTokenReader(SECRET);
    const forged = `${NAME}=${encodeURIComponent(signed("AbCdEf0123456789", "other"))}`;
    expect(reader.cookie(forged, NAME)).toBeNull();
    expect(reader.cookie(forged, NAME)).toBeNull();
    expect(reader.cookie(cookieOf("AbCdEf0123456789"), NAME)).toBe("AbCdEf0123456789");
    expect(reader.cookie(cookieOf("AbCdEf0123456789"), `__Secure-${NAME}`)).toBeNull();
  });

  it("keeps answering once it has remembered as many values as it keeps", () => {
    const reader = sessionTokenReader(SECRET);
    for (let i = 0; i <= REMEMBERED_VALUES; i++) expect(reader.cookie(cookieOf(`t${i}`), NAME)).toBe(`t${i}`);
    expect(reader.cookie(cookieOf("t0"), NAME)).toBe("t0");
    expect(reader.cookie(cookieOf(`t${REMEMBERED_VALUES}`), NAME)).toBe(`t${REMEMBERED_VALUES}`);
  });

  it("answers a good value spelled longer than it keeps, padded or %-escaped, every time", () => {
    const reader = sessionTokenReader(SECRET);
    const token = "AbCdEf0123456789AbCdEf0123456789"; // 32 characters, as better-auth makes them
    const padded = `Bearer ${" ".repeat(REMEMBERED_LENGTH)}${encodeURIComponent(signed(token))}`;
    const escaped = `${NAME}=${[...signed(token)].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`;
    expect(escaped.length).toBeGreaterThan(REMEMBERED_LENGTH);
    for (let i = 0; i < 2; i++) {
      expect(reader.bearer(padded)).toBe(token);
      expect(reader.cookie(escaped, NAME)).toBe(token);
    }
  });

  it("does not take a reader's values for another secret's", () => {
    expect(sessionTokenReader("other").cookie(cookieOf("AbCdEf0123456789"), NAME)).toBeNull();
  });
});

// A request's session token, read as better-auth reads it: from an `Authorization: Bearer` header (its
// bearer plugin) or from the signed session cookie (better-call's getSignedCookie). Anything these readers
// do not take for certain is null, and the caller then asks better-auth, whose rules decide.
import { createHmac, timingSafeEqual } from "node:crypto";

const BEARER = "bearer ";

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const signatureOf = (token: string, secret: string) => createHmac("sha256", secret).update(token).digest("base64");

/**
 * The session token in an `Authorization: Bearer` header, as better-auth's bearer plugin reads it: the raw
 * token, or the signed form `token.signature` (HMAC-SHA256, base64url) whose signature must match.
 * Null when there is no bearer token or its signature is wrong.
 */
export function bearerSessionToken(authorization: string | undefined, secret: string): string | null {
  if (!authorization || authorization.slice(0, BEARER.length).toLowerCase() !== BEARER) return null;
  const value = authorization.slice(BEARER.length).trim();
  if (!value) return null;
  const dot = value.indexOf(".");
  if (dot < 0) return value;
  const signed = decode(value);
  const split = signed.indexOf(".");
  const token = signed.slice(0, split);
  const given = Buffer.from(
    signed
      .slice(split + 1)
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_"),
  );
  const expected = Buffer.from(createHmac("sha256", secret).update(token).digest("base64url"));
  return token && given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}

/**
 * The value of the cookie `name` when the header names it exactly once, at the start or after a `;`: then
 * every cookie parser finds this one value (better-call's keeps the first of several, others the last).
 */
function onlyCookie(header: string, name: string): string | null {
  const at = header.indexOf(`${name}=`);
  if (at < 0 || header.indexOf(`${name}=`, at + 1) >= 0) return null;
  for (let i = at - 1; i >= 0; i--) {
    const c = header[i];
    if (c === ";") break;
    if (c !== " " && c !== "\t") return null;
  }
  const end = header.indexOf(";", at);
  return header.slice(at + name.length + 1, end < 0 ? undefined : end).trim();
}

/** The token of a session cookie's value when its signature is good, as better-call checks it. */
function signedCookieToken(value: string, secret: string): string | null {
  if (value.startsWith('"')) return null;
  const signed = value.includes("%") ? decode(value) : value;
  const dot = signed.lastIndexOf(".");
  if (dot < 1) return null;
  const token = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(signatureOf(token, secret));
  return given.length === 44 && given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}

/**
 * The session token in the signed session cookie `name`, as better-call's getSignedCookie reads it: the
 * URL-decoded value `token.signature`, the signature HMAC-SHA256 in padded base64 (44 characters). Null
 * for no cookie, a wrong signature, and any form better-call might read otherwise (a quoted value, the name
 * twice).
 */
export function cookieSessionToken(header: string | undefined, name: string, secret: string): string | null {
  const value = header ? onlyCookie(header, name) : null;
  return value ? signedCookieToken(value, secret) : null;
}

/** How many checked header values a reader keeps, about one per signed-in client. */
export const REMEMBERED_VALUES = 10_000;
/**
 * The longest value it keeps (a signed token is ~80 characters): blanks and %-escapes make endless spellings
 * of one good value, and the record stays under ~3 MB however a caller spells theirs.
 */
export const REMEMBERED_LENGTH = 256;

/**
 * Reads tokens with `secret`, remembering each signed value it found good: its HMAC is ~5 µs, more than a
 * whole request answered from memory spends in our code (issue AE). Only good values are kept, so a forged
 * one costs its HMAC every time, as before; the record starts afresh when full.
 */
export function sessionTokenReader(secret: string) {
  const good = new Map<string, string>();
  const remembered = (key: string, read: () => string | null): string | null => {
    const known = good.get(key);
    if (known !== undefined) return known;
    const token = read();
    if (token !== null && key.length <= REMEMBERED_LENGTH) {
      if (good.size >= REMEMBERED_VALUES) good.clear();
      good.set(key, token);
    }
    return token;
  };
  return {
    bearer(authorization: string | undefined): string | null {
      // A raw token has no signature to check.
      if (!authorization?.includes(".")) return bearerSessionToken(authorization, secret);
      return remembered(`a ${authorization}`, () => bearerSessionToken(authorization, secret));
    },
    cookie(header: string | undefined, name: string): string | null {
      const value = header ? onlyCookie(header, name) : null;
      if (!value) return null;
      return remembered(`c ${name}=${value}`, () => signedCookieToken(value, secret));
    },
  };
}

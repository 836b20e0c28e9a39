// The pure rules of the flag over OFREP (server/ofrep/evaluation.ts, stream-token.ts).
import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  evaluate,
  evaluationJson,
  FLAG_KEY,
  flagsEtag,
  matchesEtag,
  REMEMBERED_EVALUATIONS,
  targetingKeyOf,
} from "../../server/ofrep/evaluation.js";
import { readStreamToken, streamToken } from "../../server/ofrep/stream-token.js";

describe("the flag's evaluation", () => {
  it("is the stored flag with TARGETING_MATCH, or off by DEFAULT; metadata names the cohort only when one set it", () => {
    expect(evaluate(undefined)).toEqual({ key: FLAG_KEY, value: false, reason: "DEFAULT", variant: "off", metadata: {} });
    expect(evaluate({ restrictionActive: true, cohortId: "c1" })).toEqual({
      key: FLAG_KEY,
      value: true,
      reason: "TARGETING_MATCH",
      variant: "on",
      metadata: { cohortId: "c1" },
    });
    expect(evaluate({ restrictionActive: false, cohortId: null })).toMatchObject({ value: false, variant: "off", metadata: {} });
  });

  it("has an ETag that changes with the flag and matches If-None-Match lists, weak forms and *", () => {
    const on = flagsEtag([evaluate({ restrictionActive: true, cohortId: null })]);
    const off = flagsEtag([evaluate({ restrictionActive: false, cohortId: null })]);
    expect(on).not.toBe(off);
    expect(matchesEtag(on, on)).toBe(true);
    expect(matchesEtag(`"x", W/${on}`, on)).toBe(true);
    expect(matchesEtag("*", on)).toBe(true);
    expect(matchesEtag(off, on)).toBe(false);
    expect(matchesEtag(undefined, on)).toBe(false);
  });

  it("keeps the ETags clients already hold: the same value for the same flag across releases", () => {
    // Computed by the release before issue AE's sixth round; a changed ETag would answer 200 to every cached client once.
    expect(flagsEtag([evaluate(undefined)])).toBe('"6K8aqcoRu2wMhoQ8ARKCqA"');
    expect(flagsEtag([evaluate({ restrictionActive: true, cohortId: "c1" })])).toBe('"84F2virvRg1YakB2l-nxKw"');
  });

  it("gives each flag its own evaluation and ETag, however many cohorts came before", () => {
    // More cohorts than are remembered: an evaluation made again after they are forgotten is the same.
    const hashed = (flag: object) => `"${hash("sha256", JSON.stringify([flag]), "base64url").slice(0, 22)}"`;
    const cohorts = [null, ...Array.from({ length: REMEMBERED_EVALUATIONS + 10 }, (_, i) => `cohort-${i}`)];
    for (const round of [1, 2]) {
      const seen = new Set<string>();
      for (const cohortId of cohorts) {
        for (const restrictionActive of [true, false]) {
          const flag = evaluate({ restrictionActive, cohortId });
          const made = { key: FLAG_KEY, value: restrictionActive, reason: "TARGETING_MATCH", variant: restrictionActive ? "on" : "off" };
          expect(flag, `round ${round}, ${cohortId}`).toEqual({ ...made, metadata: cohortId ? { cohortId } : {} });
          const etag = flagsEtag([flag]);
          expect(etag, `round ${round}, ${cohortId}`).toBe(hashed(flag));
          seen.add(etag);
        }
      }
      expect(seen.size).toBe(cohorts.length * 2);
    }
    expect(Object.isFrozen(evaluate(undefined)) && Object.isFrozen(evaluate(undefined).metadata)).toBe(true);
  });

  it("answers an evaluation with the JSON of the flag itself, for any stored status, however often asked", () => {
    const status = fc.option(fc.record({ restrictionActive: fc.boolean(), cohortId: fc.option(fc.string({ minLength: 1 })) }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(status, (stored) => {
        const flag = evaluate(stored);
        expect(evaluationJson(flag)).toBe(JSON.stringify(flag));
        expect(evaluationJson(flag)).toBe(JSON.stringify(evaluate(stored)));
      }),
    );
  });

  it("reads the pro from context.targetingKey, naming what is wrong otherwise", () => {
    expect(targetingKeyOf({ context: { targetingKey: "pro-1", email: "x" } })).toBe("pro-1");
    expect(targetingKeyOf([])).toMatchObject({ errorCode: "PARSE_ERROR" });
    expect(targetingKeyOf({ context: "pro-1" })).toMatchObject({ errorCode: "INVALID_CONTEXT" });
    expect(targetingKeyOf({ context: { targetingKey: " " } })).toMatchObject({ errorCode: "TARGETING_KEY_MISSING" });
    expect(targetingKeyOf({ context: { targetingKey: "a\u0000b" } })).toMatchObject({ errorCode: "INVALID_CONTEXT" });
    expect(targetingKeyOf({ context: { targetingKey: "\ud800" } })).toMatchObject({ errorCode: "INVALID_CONTEXT" });
  });
});

describe("the stream URL's grant", () => {
  const secret = "a-secret-long-enough-for-the-tests-0123456789";
  const grant = { keyId: "k1", targetingKey: "pro-1", expiresAt: Date.now() + 60_000 };

  it("reads back what it carries, and nothing once expired, altered or signed with another secret", () => {
    const token = streamToken(secret, grant);
    expect(readStreamToken(secret, token)).toEqual(grant);
    expect(readStreamToken(secret, token, grant.expiresAt)).toBeNull();
    expect(readStreamToken("another-secret-of-the-same-length-0123456789", token)).toBeNull();
    const [body, signature] = token.split(".") as [string, string];
    const altered = Buffer.from(JSON.stringify(["k2", "pro-1", grant.expiresAt])).toString("base64url");
    expect(readStreamToken(secret, `${altered}.${signature}`)).toBeNull();
    expect(readStreamToken(secret, body)).toBeNull();
  });

  it("never throws on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (text) => readStreamToken(secret, text) === null));
  });
});

// The restriction over OFREP as the contract fixes it (../shared/CONTRACT.md part three), request by request:
// values, reasons, variants and metadata; the flag's key and the context; bulk with its ETag and 304; and
// which keys are let in. The real OpenFeature SDKs read it in ofrep-sdk.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "../../db/schema/index.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { activeCohort, adminRestrictionApi, freshId, newProIds, registeredPro } from "../helpers/fixtures.js";
import { FLAG, forPro, ofrep } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

describe("OFREP: the restriction as an OpenFeature flag", () => {
  const t = useTestApp({ limits: { ofrepPerKey: { max: 20, timeWindowMs: 60_000 } } });
  const o = ofrep(t);
  // A fresh key per test: the limit of 20 per key per minute is the limit test's to reach.
  const key = () => insertApiKey(t().db.db);

  it("evaluates a pro: its flag, TARGETING_MATCH, on/off, and the cohort that set it", async () => {
    const api = await adminRestrictionApi(t());
    const [byCohort] = newProIds(1) as [string];
    const cohort = await activeCohort(api, [byCohort]);
    const perPro = await registeredPro(t().db.db);
    await api.activatePro({ proId: perPro });
    const { headers } = await key();

    const cohortAnswer = await o.evaluate({ headers, body: forPro(byCohort) });
    expect(cohortAnswer.statusCode).toBe(200);
    expect(cohortAnswer.json()).toEqual({
      key: FLAG,
      value: true,
      reason: "TARGETING_MATCH",
      variant: "on",
      metadata: { cohortId: cohort.id },
    });
    expect((await o.evaluate({ headers, body: forPro(perPro) })).json()).toEqual({
      key: FLAG,
      value: true,
      reason: "TARGETING_MATCH",
      variant: "on",
      metadata: {},
    });
    await api.rollbackPro({ proId: perPro });
    expect((await o.evaluate({ headers, body: forPro(perPro) })).json()).toMatchObject({
      value: false,
      reason: "TARGETING_MATCH",
      variant: "off",
    });
    expect((await o.evaluate({ headers, body: forPro(freshId("never")) })).json()).toEqual({
      key: FLAG,
      value: false,
      reason: "DEFAULT",
      variant: "off",
      metadata: {},
    });
  });

  it("answers another flag key 404 FLAG_NOT_FOUND, a context without a pro 400, a malformed body PARSE_ERROR", async () => {
    const { headers } = await key();
    const notFound = await o.evaluate({ headers, flag: "dark-mode", body: forPro("pro-1") });
    expect({ status: notFound.statusCode, body: notFound.json() }).toEqual({
      status: 404,
      body: { key: "dark-mode", errorCode: "FLAG_NOT_FOUND", errorDetails: "Flag 'dark-mode' was not found" },
    });
    for (const body of [
      { context: {} },
      { context: { targetingKey: "" } },
      { context: { targetingKey: "  " } },
      { context: { targetingKey: 7 } },
    ]) {
      const res = await o.evaluate({ headers, body });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 400,
        body: { key: FLAG, errorCode: "TARGETING_KEY_MISSING", errorDetails: expect.any(String) },
      });
    }
    const tooLong = await o.evaluate({ headers, body: forPro("p".repeat(201)) });
    expect(tooLong.json()).toMatchObject({ key: FLAG, errorCode: "INVALID_CONTEXT" });
    const malformed = await o.evaluate({ headers, raw: '{"context": {' });
    expect({ status: malformed.statusCode, body: malformed.json() }).toEqual({
      status: 400,
      body: { errorCode: "PARSE_ERROR", errorDetails: expect.any(String) },
    });
    const bulkMissing = await o.bulk({ headers, body: { context: {} } });
    expect({ status: bulkMissing.statusCode, code: bulkMissing.json().errorCode }).toEqual({ status: 400, code: "INVALID_CONTEXT" });
  });

  it("bulk: the flag, an event stream URL and an ETag; the same ETag in If-None-Match answers 304 until the flag changes", async () => {
    const api = await adminRestrictionApi(t());
    const proId = await registeredPro(t().db.db);
    const { headers } = await key();
    const first = await o.bulk({ headers, body: forPro(proId) });
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.json()).toEqual({
      flags: [{ key: FLAG, value: false, reason: "DEFAULT", variant: "off", metadata: {} }],
      eventStreams: [{ type: "sse", url: expect.stringMatching(/\/ofrep\/v1\/events\?token=/) }],
    });
    const again = await o.bulk({ headers: { ...headers, "if-none-match": etag }, body: forPro(proId) });
    expect({ status: again.statusCode, body: again.body, etag: again.headers.etag }).toEqual({ status: 304, body: "", etag });

    await api.activatePro({ proId });
    const changed = await o.bulk({ headers: { ...headers, "if-none-match": etag }, body: forPro(proId) });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json().flags[0]).toMatchObject({ value: true, variant: "on" });
  });

  it("limits each key: past OFREP_REQUESTS_PER_MINUTE, 429 with Retry-After; another key is not held back", async () => {
    const { headers } = await key();
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof o.evaluate>> | undefined;
    for (let i = 0; i < 21; i++) {
      const res = await o.evaluate({ headers, body: forPro("pro-1") });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) limited = res;
    }
    expect(statuses).toEqual([...Array(20).fill(200), 429]);
    expect(Number(limited!.headers["retry-after"])).toBeGreaterThan(0);
    expect((await o.evaluate({ headers: (await key()).headers, body: forPro("pro-1") })).statusCode).toBe(200);
  });

  it("writes nothing but the key's lastUsedAt, at most once a minute", async () => {
    const { id, headers } = await key();
    const lastUsed = async () => (await t().db.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, id)))[0]!.at;
    expect(await lastUsed()).toBeNull();
    await o.evaluate({ headers, body: forPro("pro-1") });
    const first = await waitFor(lastUsed, (at) => at !== null, { withinMs: 5000, what: "lastUsedAt written" });
    await o.evaluate({ headers, body: forPro("pro-1") });
    await o.bulk({ headers, body: forPro("pro-1") });
    expect(await lastUsed()).toEqual(first);
  });
});

// What a reader sees when the service refuses its key (docs/platform.md, "When a reader's key is refused", issue
// U.14), with the real OpenFeature SDKs: OFREP gives 401 and 403 no body, and its providers read the status
// only, so the server SDK reports a GENERAL error with an empty message. The answer's `errorDetails` says
// why, for a hook that reads it (the one docs/api.md shows), and every refusal is counted by reason in
// ofrep_refusals_total for the operator.

import { readFileSync } from "node:fs";
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
import { type Client, ErrorCode, type Hook, OpenFeature } from "@openfeature/server-sdk";
import { OpenFeature as WebOpenFeature } from "@openfeature/web-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSecret } from "../../server/auth/api-keys.js";
import { OFREP_REFUSAL_REASONS, type OfrepRefusalReason, ofrepRefusals, registry } from "../../server/observability/metrics.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { freshId } from "../helpers/fixtures.js";
import { parseMetrics, sampleValue } from "../helpers/metrics.js";
import { freePort } from "../helpers/net.js";
import { FLAG, forPro, ofrep } from "../helpers/ofrep.js";

const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;

/** The hook of docs/api.md: it reads the refused answer's errorDetails, which the provider leaves unread. */
function refusalHook(seen: string[]): Hook {
  return {
    async error(_hookContext, err) {
      const response = (err as { response?: Response }).response;
      if (response?.status === 401 || response?.status === 403) {
        const body = (await response
          .clone()
          .json()
          .catch(() => ({}))) as { errorDetails?: string };
        seen.push(`OFREP refused the API key (${response.status}): ${body.errorDetails}`);
      }
    },
  };
}

/**
 * The start-up check of docs/platform.md (issue AD.7): one evaluation, and no start on an error, since a refused
 * key reads every pro as unrestricted without a word. Any pro id does: an unknown one answers DEFAULT.
 */
async function startUpCheck(flags: Client): Promise<void> {
  const probe = await flags.getBooleanDetails("restrict-direct-contact", false, { targetingKey: "start-up-check" });
  if (probe.errorCode) {
    throw new Error(`restrict-direct-contact cannot be read (${probe.errorCode}${probe.errorMessage ? `: ${probe.errorMessage}` : ""})`);
  }
}

const refusals = async (): Promise<Record<OfrepRefusalReason, number>> => {
  const values = (await ofrepRefusals.get()).values;
  return Object.fromEntries(
    OFREP_REFUSAL_REASONS.map((reason) => [reason, values.find((v) => v.labels.reason === reason)?.value ?? 0]),
  ) as Record<OfrepRefusalReason, number>;
};

describe("a reader whose key is refused", () => {
  const t = useTestApp({ publicBaseUrl: baseUrl, limits: { ofrepPerKey: { max: 3, timeWindowMs: 60_000 } } });
  beforeAll(async () => {
    await t().app.listen({ port, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await OpenFeature.close();
    await WebOpenFeature.close();
  });

  /** One server-SDK evaluation with this key: what the reader's code gets, and what the hook logged. */
  async function evaluateWith(domain: string, headers: Record<string, string>) {
    const seen: string[] = [];
    await OpenFeature.setProviderAndWait(domain, new OFREPProvider({ baseUrl, headers }));
    const client = OpenFeature.getClient(domain);
    client.addHooks(refusalHook(seen));
    const details = await client.getBooleanDetails(FLAG, false, { targetingKey: freshId("pro") });
    return { details, seen };
  }

  it("server SDK: a GENERAL error with no message and the default value; the answer's errorDetails says why", async () => {
    const revoked = await insertApiKey(t().db.db, { revokedAt: new Date() });
    const expired = await insertApiKey(t().db.db, { expiresAt: new Date(Date.now() - 1000) });
    const producerOnly = await insertApiKey(t().db.db, { scopes: ["notifications:write"] });
    const cases: { domain: string; headers: Record<string, string>; why: string }[] = [
      { domain: "wrong-key", headers: { "x-api-key": newSecret() }, why: "OFREP refused the API key (401): Unknown API key" },
      { domain: "revoked-key", headers: revoked.headers, why: "OFREP refused the API key (401): This API key was revoked" },
      { domain: "expired-key", headers: expired.headers, why: "OFREP refused the API key (401): This API key has expired" },
      { domain: "no-key", headers: {}, why: "OFREP refused the API key (401): An API key is required (X-API-Key)" },
      {
        domain: "producer-key",
        headers: producerOnly.headers,
        why: "OFREP refused the API key (403): This API key lacks the flags:read scope",
      },
    ];
    const before = await refusals();
    for (const { domain, headers, why } of cases) {
      const { details, seen } = await evaluateWith(domain, headers);
      expect({ domain, details, seen }).toMatchObject({
        domain,
        details: { value: false, reason: "ERROR", errorCode: ErrorCode.GENERAL, errorMessage: "" },
        seen: [why],
      });
    }
    const after = await refusals();
    expect({
      unknown_key: after.unknown_key - before.unknown_key,
      revoked: after.revoked - before.revoked,
      expired: after.expired - before.expired,
      missing_key: after.missing_key - before.missing_key,
      wrong_scope: after.wrong_scope - before.wrong_scope,
    }).toEqual({ unknown_key: 1, revoked: 1, expired: 1, missing_key: 1, wrong_scope: 1 });
  });

  it("the docs' start-up check stops a reader whose key is refused, saying why through the hook, and passes a good key", async () => {
    const producerOnly = await insertApiKey(t().db.db, { scopes: ["notifications:write"] });
    const seen: string[] = [];
    await OpenFeature.setProviderAndWait("check-wrong-scope", new OFREPProvider({ baseUrl, headers: producerOnly.headers }));
    const refused = OpenFeature.getClient("check-wrong-scope");
    refused.addHooks(refusalHook(seen));
    await expect(startUpCheck(refused)).rejects.toThrow("restrict-direct-contact cannot be read (GENERAL)");
    expect(seen).toEqual(["OFREP refused the API key (403): This API key lacks the flags:read scope"]);

    const good = await insertApiKey(t().db.db);
    await OpenFeature.setProviderAndWait("check-good", new OFREPProvider({ baseUrl, headers: good.headers }));
    await expect(startUpCheck(OpenFeature.getClient("check-good"))).resolves.toBeUndefined();
  });

  it("docs/platform.md's main server-SDK snippet installs, hooks refusals and checks at start-up as this file does", () => {
    const docs = readFileSync(new URL("../../docs/platform.md", import.meta.url), "utf8");
    const section = docs.slice(
      docs.indexOf("## Reading the restriction from other services"),
      docs.indexOf("### When a reader's key is refused"),
    );
    for (const line of [
      "npm install @openfeature/server-sdk @openfeature/ofrep-provider",
      "OpenFeature.addHooks(ofrepRefusals);",
      'const probe = await flags.getBooleanDetails(FLAG, false, { targetingKey: "start-up-check" });',
      "if (probe.errorCode) {",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the docs' code, as text
      'throw new Error(`restrict-direct-contact cannot be read (${probe.errorCode}${probe.errorMessage ? `: ${probe.errorMessage}` : ""})`);',
      "if (response?.status === 401 || response?.status === 403) {",
    ]) {
      expect({ line, inDocs: section.includes(line) }).toEqual({ line, inDocs: true });
    }
  });

  it("web SDK: the provider cannot start, and every evaluation says PROVIDER_FATAL", async () => {
    const before = await refusals();
    const provider = new OFREPWebProvider({ baseUrl, headers: [["x-api-key", newSecret()]], cacheMode: "disabled", pollInterval: 0 });
    await WebOpenFeature.setContext("web-wrong-key", { targetingKey: freshId("pro") });
    await expect(WebOpenFeature.setProviderAndWait("web-wrong-key", provider)).rejects.toThrow("Initialization failed");
    const details = WebOpenFeature.getClient("web-wrong-key").getBooleanDetails(FLAG, false);
    expect(details).toMatchObject({ value: false, reason: "ERROR", errorCode: ErrorCode.PROVIDER_FATAL });
    expect((await refusals()).unknown_key - before.unknown_key).toBe(1);
  });

  it("counts requests over a key's limit as rate_limited, and a stale event stream URL as invalid_stream_url", async () => {
    const key = await insertApiKey(t().db.db);
    const before = await refusals();
    const send = () => ofrep(t).evaluate({ headers: key.headers, body: forPro(freshId("pro")) });
    for (let i = 0; i < 3; i++) expect((await send()).statusCode).toBe(200);
    const limited = await send();
    expect(limited.statusCode).toBe(429);
    const stale = await t().app.inject({ method: "GET", url: "/ofrep/v1/events?token=not-a-token" });
    expect(stale.statusCode).toBe(401);
    const after = await refusals();
    expect({
      rate_limited: after.rate_limited - before.rate_limited,
      invalid_stream_url: after.invalid_stream_url - before.invalid_stream_url,
    }).toEqual({
      rate_limited: 1,
      invalid_stream_url: 1,
    });
    // Every reason is on /metrics from the start, so an alert on a rate has a series to read.
    const samples = parseMetrics(await registry.metrics());
    for (const reason of OFREP_REFUSAL_REASONS) expect(sampleValue(samples, "ofrep_refusals_total", { reason })).toBeTypeOf("number");
  });
});

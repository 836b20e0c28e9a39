// The restriction read by the real OpenFeature SDKs over OFREP, as another service of the platform reads it:
// the server SDK with its OFREP provider (dynamic context, one evaluation per call), and the web SDK with its
// OFREP provider (static context, bulk evaluation and the event stream: a cohort's activation reaches it
// without polling).
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
import { ErrorCode, OpenFeature } from "@openfeature/server-sdk";
import { ProviderEvents, OpenFeature as WebOpenFeature } from "@openfeature/web-sdk";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ofrepStreamsOpen } from "../../server/observability/metrics.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { adminRestrictionApi, freshId, passedCohort, registeredPro } from "../helpers/fixtures.js";
import { freePort } from "../helpers/net.js";
import { FLAG } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

// The web provider follows event streams with the browser's EventSource; Node has none of its own.
(globalThis as { EventSource?: unknown }).EventSource ??= EventSource;

// The service hands out stream URLs on its public base URL: the one it listens on here.
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;

describe("the OpenFeature SDKs read the restriction over OFREP", () => {
  const t = useTestApp({ publicBaseUrl: baseUrl });
  beforeAll(async () => {
    await t().app.listen({ port, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await OpenFeature.close();
    await WebOpenFeature.close();
  });

  it("server SDK: the pro's value, reason and variant; another flag FLAG_NOT_FOUND; a revoked key an error, never a stale value", async () => {
    const api = await adminRestrictionApi(t());
    const restricted = await registeredPro(t().db.db);
    await api.activatePro({ proId: restricted });
    const key = await insertApiKey(t().db.db);
    const client = OpenFeature.getClient("messaging-service");
    await OpenFeature.setProviderAndWait("messaging-service", new OFREPProvider({ baseUrl, headers: key.headers }));

    expect(await client.getBooleanDetails(FLAG, false, { targetingKey: restricted })).toMatchObject({
      flagKey: FLAG,
      value: true,
      reason: "TARGETING_MATCH",
      variant: "on",
    });
    expect(await client.getBooleanDetails(FLAG, true, { targetingKey: freshId("unknown") })).toMatchObject({
      value: false,
      reason: "DEFAULT",
      variant: "off",
    });
    expect(await client.getBooleanDetails("dark-mode", true, { targetingKey: restricted })).toMatchObject({
      value: true,
      reason: "ERROR",
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });

    await api.rollbackPro({ proId: restricted });
    expect(await client.getBooleanValue(FLAG, true, { targetingKey: restricted })).toBe(false);

    const admin = await t().signUp({ admin: true });
    const revoked = await t().app.inject({ method: "DELETE", url: `/api/admin/api-keys/${key.id}`, headers: admin.headers });
    expect(revoked.statusCode).toBe(200);
    const afterRevoke = await client.getBooleanDetails(FLAG, true, { targetingKey: restricted });
    expect(afterRevoke).toMatchObject({ value: true, reason: "ERROR" });
    expect(afterRevoke.errorCode).toBeDefined();
  });

  it("web SDK: a cohort's activation reaches the provider through the event stream, without polling", async () => {
    const api = await adminRestrictionApi(t());
    const proId = await registeredPro(t().db.db);
    const cohort = await passedCohort(api, [proId]);
    const key = await insertApiKey(t().db.db);
    await WebOpenFeature.setContext({ targetingKey: proId });
    const provider = new OFREPWebProvider({ baseUrl, headers: Object.entries(key.headers), cacheMode: "disabled", pollInterval: 0 });
    await WebOpenFeature.setProviderAndWait(provider);
    const client = WebOpenFeature.getClient();
    expect(client.getBooleanDetails(FLAG, true)).toMatchObject({ value: false, reason: "DEFAULT", variant: "off" });

    let changes = 0;
    client.addHandler(ProviderEvents.ConfigurationChanged, () => changes++);
    // The provider connects to the stream after its first evaluation; the activation comes once it follows.
    await waitFor(
      async () => (await ofrepStreamsOpen.get()).values[0]?.value ?? 0,
      (open) => open >= 1,
      { withinMs: 5000, what: "the provider's event stream open" },
    );
    await api.activateCohort({ id: cohort.id });

    await waitFor(
      async () => client.getBooleanValue(FLAG, false),
      (value) => value === true,
      {
        withinMs: 5000,
        what: "the activation seen by the web provider",
      },
    );
    expect(client.getBooleanDetails(FLAG, false)).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
      variant: "on",
      flagMetadata: { cohortId: cohort.id },
    });
    expect(changes).toBeGreaterThanOrEqual(1);
  });
});

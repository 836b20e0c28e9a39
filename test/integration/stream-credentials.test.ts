// An OFREP stream URL carries its own credential (docs/platform.md#reading-the-restriction-from-other-services):
// whoever reads the service's logs or metrics must not find it there. Every log line of the app, at the most
// verbose level, and the whole metrics text are searched for it after the requests that carry it.
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registry } from "../../server/observability/metrics.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { openSse, type SseStream } from "../helpers/sse.js";

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString());
    done();
  },
});

describe("an OFREP stream's credential", () => {
  const t = useTestApp({ logger: { level: "trace", stream: logStream } });
  const o = ofrep(t);
  let baseUrl: string;
  let stream: SseStream | undefined;
  beforeAll(async () => {
    baseUrl = await t().app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => stream?.close());

  it("appears in no log line and no metric label, however the URL that carries it is written", async () => {
    const key = await insertApiKey(t().db.db);
    const bulk = await o.bulk({ headers: key.headers, body: forPro("pro-logged") });
    const url = new URL((bulk.json() as { eventStreams: { url: string }[] }).eventStreams[0]!.url);
    const token = url.searchParams.get("token")!;
    // The signature is the secret part: the body before the dot only names the key and the pro.
    const signature = token.slice(token.indexOf(".") + 1);
    expect(signature.length).toBeGreaterThan(20);

    stream = await openSse(`${baseUrl}${url.pathname}${url.search}`);
    expect(stream.status).toBe(200);
    const encoded = encodeURIComponent(token);
    for (const path of [
      `/ofrep/v1/events?a=1&token=${encoded}`,
      `/ofrep/v1/events?%74oken=${encoded}`,
      `/ofrep/v1/events?token=${encoded}&token=x`,
      `/ofrep/v1/events/?token=${encoded}`,
      `/ofrep/v1/event?token=${encoded}`,
      `/ofrep/v1/events?token=${token.replace(".", "%2E")}`,
    ]) {
      const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
      await res?.body?.cancel();
    }
    stream.close();

    const logged = logLines.join("");
    expect(logged).toContain("request completed");
    expect(logged).toContain("/ofrep/v1/events?token=[redacted]");
    expect(logged).not.toContain(signature);
    expect(logged).not.toContain(encodeURIComponent(signature));
    expect(await registry.metrics()).not.toContain(signature);
  });
  it("nor does an API key or other credential a client puts in the query string (issue X)", async () => {
    const secret = "rn_sk_query_string_secret_0123456789";
    for (const name of ["api_key", "apiKey", "access_token", "password", "session"]) {
      const res = await fetch(`${baseUrl}/api/notifications?page=1&${name}=${secret}`, { signal: AbortSignal.timeout(2000) });
      expect(res.status).toBe(401);
      await res.body?.cancel();
    }
    const logged = logLines.join("");
    expect(logged).toContain("/api/notifications?page=1&api_key=[redacted]");
    expect(logged).not.toContain(secret);
    expect(await registry.metrics()).not.toContain(secret);
  });
});

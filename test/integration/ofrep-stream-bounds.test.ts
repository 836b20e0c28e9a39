// CONTRACT part four, "Bounds" (docs/platform.md#reading-the-restriction-from-other-services): OFREP event streams
// are bounded per stream address (key and targeting key, OFREP_STREAMS_PER_TARGET) and per key on an instance
// (OFREP_STREAMS_PER_KEY), 429 with Retry-After past either; a closed stream frees its place; a stream opened
// with a key that expires later ends at the key's expiry. Here the bounds are 2 and 3.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ofrepStreamsOpen } from "../../server/observability/metrics.js";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { freshId } from "../helpers/fixtures.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { openSse, type SseStream } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

describe("OFREP event stream bounds", () => {
  const t = useTestApp({ limits: { ofrepStreamsPerTarget: 2, ofrepStreamsPerKey: 3 } });
  const o = ofrep(t);
  let base: string;
  const streams: SseStream[] = [];
  beforeAll(async () => {
    base = await t().app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => {
    for (const s of streams) s.close();
  });

  /** The stream URL a bulk evaluation hands out for this key and pro, on the listening server. */
  async function urlFor(key: TestApiKey, proId: string): Promise<string> {
    const res = await o.bulk({ headers: key.headers, body: forPro(proId) });
    expect(res.statusCode).toBe(200);
    const url = new URL((res.json() as { eventStreams: { url: string }[] }).eventStreams[0]!.url);
    return `${base}${url.pathname}${url.search}`;
  }
  async function open(url: string): Promise<SseStream> {
    const s = await openSse(url);
    streams.push(s);
    return s;
  }
  /** A refused stream's status, Retry-After and OFREP error body. */
  async function refusal(url: string) {
    const abort = new AbortController();
    const res = await fetch(url, { signal: abort.signal });
    // A stream that opened (the bound not held) has no end to read.
    const body = res.status === 200 ? abort.abort() : ((await res.json()) as { errorDetails?: string });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
  }
  const openCount = async () => (await ofrepStreamsOpen.get()).values[0]?.value ?? 0;

  it("refuses a stream past OFREP_STREAMS_PER_TARGET on one key and pro with 429, and takes one again once a stream closes", async () => {
    const key = await insertApiKey(t().db.db);
    const url = await urlFor(key, freshId("pro-target"));
    const [first, second] = [await open(url), await open(url)];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await refusal(url)).toEqual({
      status: 429,
      retryAfter: expect.stringMatching(/^\d+$/),
      body: { errorDetails: expect.stringContaining("per key and targeting key") },
    });

    // Another key on the same pro is another stream address.
    const other = await open(await urlFor(await insertApiKey(t().db.db), freshId("pro-target")));
    expect(other.status).toBe(200);

    const before = await openCount();
    first.close();
    await waitFor(openCount, (n) => n === before - 1, { withinMs: 5000, what: "the closed stream counted out" });
    expect((await open(url)).status).toBe(200);
  });

  it("refuses a key's stream past OFREP_STREAMS_PER_KEY on the instance with 429, whatever pro it follows", async () => {
    const key = await insertApiKey(t().db.db);
    for (let i = 0; i < 3; i++) expect((await open(await urlFor(key, freshId("pro-key")))).status).toBe(200);
    expect(await refusal(await urlFor(key, freshId("pro-key")))).toEqual({
      status: 429,
      retryAfter: expect.stringMatching(/^\d+$/),
      body: { errorDetails: expect.stringContaining("per key") },
    });
    // Another key is not held back by this one.
    expect((await open(await urlFor(await insertApiKey(t().db.db), freshId("pro-key")))).status).toBe(200);
  });

  it("ends a stream when the key it was opened with expires", async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const key = await insertApiKey(t().db.db, { expiresAt });
    const stream = await open(await urlFor(key, freshId("pro-expiring")));
    expect(stream.status).toBe(200);
    await stream.ended(10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
  });
});

// OFREP's event streams (ADR 0008) on their own: what a change sends, to whom, and when a stream URL stops
// working. One announcement per statement that writes flags, whatever number of pros it wrote.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLAGS_CHANNEL } from "../../server/ofrep/changes.js";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { TEST_ORIGIN, useTestApp } from "../helpers/app.js";
import { adminRestrictionApi, newProIds, passedCohort, registerPros } from "../helpers/fixtures.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { openSse, type SseStream } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

describe("OFREP event streams", () => {
  const t = useTestApp();
  const o = ofrep(t);
  let baseUrl: string;
  const streams: SseStream[] = [];
  beforeAll(async () => {
    baseUrl = await t().app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => {
    for (const stream of streams) stream.close();
  });

  /** The stream URL a bulk evaluation hands out for this pro, on the listening server. */
  async function streamFor(key: TestApiKey, proId: string): Promise<SseStream> {
    const { eventStreams } = (await o.bulk({ headers: key.headers, body: forPro(proId) })).json() as { eventStreams: { url: string }[] };
    const url = new URL(eventStreams[0]!.url);
    const stream = await openSse(`${baseUrl}${url.pathname}${url.search}`);
    streams.push(stream);
    return stream;
  }

  it("sends refetchEvaluation with the new ETag to the streams of the changed pros only, once per statement", async () => {
    const api = await adminRestrictionApi(t());
    const proIds = newProIds(500);
    const cohort = await passedCohort(api, proIds);
    const key = await insertApiKey(t().db.db);
    const outsidePro = `pro-outside-${randomBytes(3).toString("hex")}`;
    await registerPros(t().db.db, [outsidePro]);
    const [inCohort, outside] = [await streamFor(key, proIds[0]!), await streamFor(key, outsidePro)];
    expect([inCohort.status, outside.status]).toEqual([200, 200]);
    const announced: string[] = [];
    const stop = await t().db.listen!(FLAGS_CHANNEL, (payload) => announced.push(payload));

    await api.activateCohort({ id: cohort.id });
    const event = await inCohort.next(5000);
    expect(event.event).toBe("message");
    const data = JSON.parse(event.data) as { type: string; etag: string };
    const bulk = await o.bulk({ headers: key.headers, body: forPro(proIds[0]!) });
    expect(data).toEqual({ type: "refetchEvaluation", etag: bulk.headers.etag });
    // A cohort of 500 pros is one announcement, not 500.
    await waitFor(
      async () => announced.length,
      (n) => n >= 1,
      { withinMs: 2000, what: "the announcement" },
    );
    expect(announced).toHaveLength(1);
    await stop();

    // The stream outside the cohort stays open and got nothing of it: its next event is its own pro's change.
    await api.activatePro({ proId: outsidePro });
    const own = await outside.next(5000);
    const outsideBulk = await o.bulk({ headers: key.headers, body: forPro(outsidePro) });
    expect(JSON.parse(own.data)).toEqual({ type: "refetchEvaluation", etag: outsideBulk.headers.etag });
  });

  it("hands out stream URLs on the public base URL (BETTER_AUTH_URL), whatever Host or forwarding headers a request names", async () => {
    const key = await insertApiKey(t().db.db);
    const named: Record<string, string>[] = [
      { host: "evil.example:666" },
      { host: "evil.example:666", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      {},
    ];
    for (const headers of named) {
      const res = await o.bulk({ headers: { ...key.headers, ...headers }, body: forPro("pro-host") });
      const { eventStreams } = res.json() as { eventStreams: { url: string }[] };
      expect({ headers, url: eventStreams[0]!.url }).toEqual({
        headers,
        url: expect.stringMatching(new RegExp(`^${TEST_ORIGIN}/ofrep/v1/events\\?token=[\\w.%-]+$`)),
      });
    }
  });

  it("refuses a forged, altered or expired stream URL with 401, and ends a stream when its key is revoked", async () => {
    const key = await insertApiKey(t().db.db);
    const stream = await streamFor(key, "pro-revoked-stream");
    for (const token of ["", "abc.def", "eyJ9.x"]) {
      const res = await fetch(`${baseUrl}/ofrep/v1/events?token=${encodeURIComponent(token)}`);
      expect({ token, status: res.status }).toEqual({ token, status: 401 });
    }
    const admin = await t().signUp({ admin: true });
    await t().app.inject({ method: "DELETE", url: `/api/admin/api-keys/${key.id}`, headers: admin.headers });
    await stream.ended(5000);
  });
});

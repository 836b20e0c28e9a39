// A delivery survives its instance: the server is killed (SIGKILL) between a 503 and the retry, or while its
// send is in flight (claimed, not recorded), and the restarted server sends it (docs/api.md#durable-push-delivery).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { call, producerKey, pushEnv, subscribedUser } from "../helpers/producer-process.js";
import { type EventStatus, eventFor } from "../helpers/producers.js";
import { startHoldingPushService } from "../helpers/push.js";
import { type ProcessDatabase, processDatabase, type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

describe("durable push delivery across a crash", () => {
  let database: ProcessDatabase;
  let pushService: LocalPushService;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    database = await processDatabase();
    pushService = await startPushService();
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(servers.map((s) => s.kill()));
    await pushService?.close();
    await database?.close();
  });

  it("a delivery retried after a 503 is sent by the restarted instance", async () => {
    // A retry 3 s or more after the 503 leaves the time to kill the server in between.
    const env = { ...database.env, ...pushEnv(6000) };
    const first = await startServerProcess(env);
    servers.push(first);
    const key = await producerKey(first);
    const endpoint = pushService.endpoint("503-then-201");
    const userId = await subscribedUser(first, endpoint);
    const event = eventFor(userId);
    const sent = await call(first, "POST", "/api/notifications/events", { events: [event] }, key);
    expect(sent.status).toBe(200);
    const arrivals = () => pushService.received.filter((r) => endpoint.endsWith(r.path)).length;
    // Killed once the 503 is recorded and the retry is waiting: between two attempts.
    await waitFor(
      async () => (await call(first, "GET", `/api/notifications/events/${event.eventId}`, undefined, key)).body!.data as EventStatus,
      (s) => s.deliveries[0]?.lastStatusCode === 503 && s.deliveries[0]?.status === "queued",
      { withinMs: 10_000, what: "the first attempt's 503 recorded" },
    );
    expect(arrivals()).toBe(1);
    await first.kill();

    const second = await startServerProcess(env);
    servers.push(second);
    const status = await waitFor(
      async () => (await call(second, "GET", `/api/notifications/events/${event.eventId}`, undefined, key)).body!.data as EventStatus,
      (s) => s.deliveries[0]?.status === "sent",
      { withinMs: 30_000, what: "the delivery sent after the restart" },
    );
    expect(status.deliveries).toEqual([expect.objectContaining({ status: "sent", attempts: 2, lastStatusCode: 201 })]);
    expect(arrivals()).toBe(2);
    // The next test starts on the same database: on PGlite one process at a time holds its folder.
    await second.stop();
  }, 90_000);

  it("killed while its send is in flight: sent again by the next instance once the lease ends, exactly once more", async () => {
    const holding = await startHoldingPushService();
    try {
      // A short lease, so the next instance need not wait the default 30 s.
      const env = { ...database.env, ...pushEnv(100), PUSH_LEASE_SECONDS: "3" };
      const first = await startServerProcess(env);
      servers.push(first);
      const key = await producerKey(first);
      const userId = await subscribedUser(first, holding.endpoint());
      const event = eventFor(userId);
      expect((await call(first, "POST", "/api/notifications/events", { events: [event] }, key)).status).toBe(200);
      // The push service holds the first send unanswered: the instance has claimed and sent, and records nothing.
      await holding.arrived(1);
      await first.kill();
      const next = await startServerProcess(env);
      servers.push(next);
      const readyAt = Date.now();
      const status = await waitFor(
        async () => (await call(next, "GET", `/api/notifications/events/${event.eventId}`, undefined, key)).body!.data as EventStatus,
        (s) => s.deliveries[0]?.status === "sent",
        { withinMs: 30_000, what: "the delivery sent by the next instance" },
      );
      // Two sends, each counted: the one the crash cut off and the one after it.
      expect(status.deliveries).toEqual([expect.objectContaining({ status: "sent", attempts: 2, lastStatusCode: 201 })]);
      expect(holding.requests).toHaveLength(2);
      expect(holding.overlaps).toEqual([]);
      // Not sent again before the lease ended, and soon after it did (or the next instance was up), not 30 s on.
      const [sent, again] = holding.requests.map((r) => r.arrivedAt) as [number, number];
      expect(again - sent).toBeGreaterThanOrEqual(3000);
      expect(again - Math.max(readyAt, sent + 3000)).toBeLessThan(10_000);
    } finally {
      await holding.close();
    }
  }, 90_000);
});

// Two instances drain one queue: every delivery is claimed by one of them and received exactly once
// (docs/api.md#durable-push-delivery).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { call, producerKey, pushEnv, subscribedUser } from "../helpers/producer-process.js";
import { type EventStatus, eventFor } from "../helpers/producers.js";
import { type ProcessDatabase, processDatabase, type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

describe("two instances, one push queue", () => {
  let database: ProcessDatabase;
  let pushService: LocalPushService;
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    database = await processDatabase();
    pushService = await startPushService();
    const env = { ...database.env, ...pushEnv(200) };
    a = await startServerProcess(env);
    b = await startServerProcess(env);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await pushService?.close();
    await database?.close();
  });

  it("sends each of 120 deliveries once, whichever instance queued it", async () => {
    const key = await producerKey(a);
    // Eight users, under the sign-up limit of 10 a minute from one address, which both instances share.
    const endpoints = Array.from({ length: 8 }, () => pushService.endpoint("delay-20"));
    const users: string[] = [];
    for (const [i, endpoint] of endpoints.entries()) users.push(await subscribedUser(i % 2 ? a : b, endpoint));
    // Batches through either instance in turn, each event to every user: 15 × 8 deliveries.
    const eventIds: string[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const events = users.map((u) => eventFor(u));
      eventIds.push(...events.map((e) => e.eventId));
      const res = await call(batch % 2 ? a : b, "POST", "/api/notifications/events", { events }, key);
      expect(res.status).toBe(200);
    }
    const deliveries = async () =>
      (
        await Promise.all(
          eventIds.map(
            async (id) => ((await call(a, "GET", `/api/notifications/events/${id}`, undefined, key)).body!.data as EventStatus).deliveries,
          ),
        )
      ).flat();
    const settled = await waitFor(deliveries, (all) => all.length === 120 && all.every((d) => d.status === "sent"), {
      withinMs: 30_000,
      what: "120 deliveries sent",
    });
    // Each was claimed once (a second claim counts a second attempt), and a sent delivery is never claimed again.
    expect(settled.filter((d) => d.attempts !== 1)).toEqual([]);
    expect(endpoints.map((e) => pushService.received.filter((r) => e.endsWith(r.path)).length)).toEqual(endpoints.map(() => 15));
  }, 90_000);
});

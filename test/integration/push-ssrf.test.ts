// docs/api.md#push-endpoints: a push endpoint cannot reach the service's own network. Refused at
// subscribe (IP literals in every spelling, localhost names, names the resolver maps inside), and checked
// again at send time with the address the connection would use, so a name that moves inside is refused
// before any connection is made.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema/index.js";
import { type LocalPushService, makeSubscriber, startPushService } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { TEST_HOSTS, tableLookup } from "../helpers/dns.js";
import { snapshotTables } from "../helpers/snapshot.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
/** The test resolver's table; a test moves a name inside the network by changing its entry. */
const hosts: Record<string, string[]> = { ...TEST_HOSTS };

const REFUSED_AT_SUBSCRIBE = [
  "https://127.0.0.1/push",
  "https://127.0.0.1:5432/",
  "https://2130706433/",
  "https://0x7f000001/",
  "https://0x7f.0.0.1/",
  "https://10.0.0.5/",
  "https://172.16.0.1/",
  "https://192.168.0.10/",
  "https://169.254.169.254/latest/meta-data/",
  "https://100.64.0.1/",
  "https://0.0.0.0/",
  "https://255.255.255.255/",
  "https://224.0.0.1/",
  "https://[::1]/",
  "https://[::]/",
  "https://[fd00::1]/",
  "https://[fe80::1]/",
  "https://[ff02::1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:a00:5]/",
  // IPv4-compatible (::/96): the URL parser writes [::127.0.0.1] as [::7f00:1].
  "https://[::127.0.0.1]/",
  "https://[::169.254.169.254]/",
  "https://[::a00:5]/",
  "https://[64:ff9b::a9fe:a9fe]/",
  "https://localhost/push",
  "https://localhost./push",
  "https://foo.localhost/push",
  // Names the test resolver maps inside the network (or partly inside).
  "https://rebind.test/push",
  "https://metadata.test/push",
  "https://mixed.test/push",
  "https://v6-loopback.test/push",
];

describe("push endpoints inside the service's own network", () => {
  const t = useTestApp({ push: { vapid, allowHttpEndpoints: true, lookup: tableLookup(hosts), timeoutMs: 2_000 } });
  let pushService: LocalPushService;
  beforeAll(async () => {
    pushService = await startPushService();
  });
  afterAll(async () => {
    await pushService?.close();
  });

  const subscribe = (user: TestUser, endpoint: string) => {
    const { p256dh, auth } = makeSubscriber();
    return t().app.inject({
      method: "POST",
      url: "/api/notifications/subscriptions",
      headers: user.headers,
      payload: { endpoint, p256dh, auth },
    });
  };

  it.each(REFUSED_AT_SUBSCRIBE)("refuses %s at subscribe with 400 naming endpoint, and stores nothing", async (endpoint) => {
    const user = await t().signUp();
    const before = await snapshotTables(t().db.db);
    const res = await subscribe(user, endpoint);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: "VALIDATION_ERROR", details: [{ field: "endpoint", message: expect.stringMatching(/^must not (point|resolve)/) }] },
    });
    expect(await snapshotTables(t().db.db)).toEqual(before);
  });

  it("accepts a public name, and one that does not resolve yet (delivery checks it again)", async () => {
    const user = await t().signUp();
    expect((await subscribe(user, "https://push.public.test/abc")).statusCode).toBe(200);
    expect((await subscribe(user, `https://not-yet-${randomBytes(3).toString("hex")}.test/abc`)).statusCode).toBe(200);
  });

  it("refuses a name that resolves inside at send time: `endpoint address not allowed`, no connection made", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    // The name does not resolve at subscribe time, then points at the local push service's address.
    const name = `later-${randomBytes(4).toString("hex")}.test`;
    const endpoint = pushService.endpoint(201).replace("127.0.0.1", name);
    const subscribed = await subscribe(target, endpoint);
    expect(subscribed.statusCode).toBe(200);
    const subscriptionId = subscribed.json().data.subscription.id as string;
    hosts[name] = ["127.0.0.1"];

    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: admin.headers,
      payload: { type: "system.test", title: "Hello", targetUserId: target.id },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      sent: 0,
      failed: 1,
      deactivated: 0,
      results: [{ subscriptionId, statusCode: null, ok: false, error: "endpoint address not allowed" }],
    });
    expect(pushService.received).toEqual([]);
  });

  it("refuses a stored IP-literal endpoint at send time too (stored before the rule, say)", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const { p256dh, auth } = makeSubscriber();
    const [row] = await t()
      .db.db.insert(pushSubscriptions)
      .values({ userId: target.id, endpoint: pushService.endpoint(201), p256dh, auth })
      .returning();
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: admin.headers,
      payload: { type: "system.test", title: "Hello", targetUserId: target.id },
    });
    expect(res.json().data.results).toEqual([
      { subscriptionId: row!.id, statusCode: null, ok: false, error: "endpoint address not allowed" },
    ]);
    expect(pushService.received).toEqual([]);
  });
});

// A producer is the key's `producer` (CONTRACT.md part four, docs/producers.md#sending-notifications-from-a-service):
// keys that share it share its eventIds, so a key can be rotated without a duplicate or a lost event; keys
// that do not are strangers, whatever their names. A name belongs to one working key at a time.
import { describe, expect, it } from "vitest";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { eventFor, producer } from "../helpers/producers.js";
import { restClient } from "../helpers/rest.js";

const KEYS = "/api/admin/api-keys";
type Created = { apiKey: { id: string; name: string; producer: string }; secret: string };

describe("the producer a key speaks for", () => {
  const t = useTestApp();
  const rest = restClient(t);
  const p = producer(t);
  const unique = () => `svc-${Math.random().toString(36).slice(2, 10)}`;

  async function createKey(admin: TestUser, payload: Record<string, unknown>): Promise<Created & { headers: { "x-api-key": string } }> {
    const created = await rest.ok<Created>(
      admin,
      { method: "POST", url: KEYS, payload: { scopes: ["notifications:write"], ...payload } },
      201,
    );
    return { ...created, headers: { "x-api-key": created.secret } };
  }

  it("is the key's name unless given, and is shown with the key", async () => {
    const admin = await t().signUp({ admin: true });
    const name = unique();
    const plain = await createKey(admin, { name });
    expect(plain.apiKey).toMatchObject({ name, producer: name });
    const named = await createKey(admin, { name: unique(), producer: "messaging" });
    expect(named.apiKey.producer).toBe("messaging");
    const listed = await rest.ok<{ apiKeys: Created["apiKey"][] }>(admin, { method: "GET", url: KEYS });
    expect(listed.apiKeys.find((k) => k.id === named.apiKey.id)?.producer).toBe("messaging");
  });

  it("refuses a producer that is empty, blank or over 100 characters, naming producer", async () => {
    const admin = await t().signUp({ admin: true });
    for (const bad of ["", "  ", "p".repeat(101), 5]) {
      await rest.invalid(
        admin,
        { method: "POST", url: KEYS, payload: { name: unique(), scopes: ["flags:read"], producer: bad } },
        "producer",
      );
    }
  });

  it("keys that share a producer share its eventIds: a rotated key neither duplicates nor loses an event", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const shared = unique();
    const old = await createKey(admin, { name: `${shared}-2026`, producer: shared });
    const event = eventFor(user.id);
    const [first] = await p.results(old, [event]);
    expect(first!.status).toBe("created");

    const rotated = await createKey(admin, { name: `${shared}-2027`, producer: shared });
    const [again] = await p.results(rotated, [event]);
    expect(again).toMatchObject({ status: "duplicate", notificationId: first!.notificationId });
    await rest.ok(admin, { method: "DELETE", url: `${KEYS}/${old.apiKey.id}` });
    const status = await p.status(rotated, event.eventId);
    expect(status.statusCode).toBe(200);
    expect(status.json().data.notificationId).toBe(first!.notificationId);
  });

  it("keys of different producers neither collide nor read each other's events", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const a = await createKey(admin, { name: unique() });
    const b = await createKey(admin, { name: unique() });
    const event = eventFor(user.id);
    expect((await p.results(a, [event]))[0]!.status).toBe("created");
    expect((await p.results(b, [event]))[0]!.status).toBe("created");
    const other = eventFor(user.id);
    await p.results(a, [other]);
    expect((await p.status(b, other.eventId)).statusCode).toBe(404);
  });

  it("a name is held by one working key: a second is 409 CONFLICT, even when both are made at once; revoking frees it", async () => {
    const admin = await t().signUp({ admin: true });
    const name = unique();
    const first = await createKey(admin, { name });
    const error = await rest.fails(admin, { method: "POST", url: KEYS, payload: { name, scopes: ["flags:read"] } }, 409, "CONFLICT");
    expect(error.message).toBe(`An API key named ${name} exists; revoke it first or choose another name`);

    // Two creations of one new name at once: the unique index decides, whichever commits first.
    const raced = unique();
    const both = await Promise.all(
      [0, 1].map(() => rest.send(admin, { method: "POST", url: KEYS, payload: { name: raced, scopes: ["flags:read"] } })),
    );
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);

    await rest.ok(admin, { method: "DELETE", url: `${KEYS}/${first.apiKey.id}` });
    const reused = await createKey(admin, { name });
    expect(reused.apiKey).toMatchObject({ name, producer: name });
  });
});

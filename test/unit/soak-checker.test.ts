// The chaos soak's checker (test/soak/chaos/checker.ts) on small hand-made histories: each promise it judges,
// once kept and once broken, so a checker that stops seeing a violation fails here, not silently in CI.
import { describe, expect, it } from "vitest";
import { check } from "../soak/chaos/checker.js";
import type { FinalDb, History, Outcome, Req } from "../soak/chaos/history.js";

let nextId = 1;
function req(r: Partial<Req> & { start: number; end: number }): Req {
  const status = r.status ?? 200;
  const outcome: Outcome = r.outcome ?? (status < 300 ? "ok" : "fail");
  return { t: "req", id: nextId++, actor: "a", op: "op", inst: 0, method: "POST", path: "/x", cred: "", status, outcome, ...r };
}
const emptyDb = (): FinalDb => ({
  pros: [],
  notifications: [],
  events: [],
  deliveries: [],
  changeRequests: [],
  activations: [],
  idempotency: [],
  users: [],
});
function history(reqs: Req[], db: Partial<FinalDb> = {}, more: Partial<History> = {}): History {
  return {
    reqs,
    streams: [],
    faults: [],
    pushes: [],
    cuts: [],
    lives: [],
    final: { t: "final", at: 0, db: { ...emptyDb(), ...db } },
    meta: { began: 0, instances: 3 },
    ...more,
  };
}
const kinds = (h: History) => check(h).map((v) => v.kind);

const proWrite = (value: boolean, start: number, end: number, extra: Partial<Req> = {}) =>
  req({ start, end, meta: { pro: "p1", value, write: "pro" }, ...extra });
const proRead = (value: boolean, start: number, inst: number) =>
  req({ start, end: start + 5, inst, meta: { pro: "p1", read: "pro", value } });

describe("the soak's checker", () => {
  it("accepts a pro read on another instance within memory's bound, and refuses one past it", () => {
    const write = proWrite(true, 0, 10);
    const db = { pros: [{ id: "p1", active: true }] };
    expect(kinds(history([write, proRead(false, 300, 1)], db))).toEqual([]);
    expect(kinds(history([write, proRead(false, 600, 1)], db))).toEqual(["stale read (memory served past its bound)"]);
    // On the writer's own instance, at once.
    expect(kinds(history([write, proRead(false, 20, 0)], db))).toEqual(["stale read (memory served past its bound)"]);
  });

  it("sees a write answered 503 that committed all the same (S.1)", () => {
    const failed = proWrite(true, 0, 10, { status: 503 });
    expect(kinds(history([failed, proRead(true, 1000, 1)], { pros: [{ id: "p1", active: true }] }))).toEqual([
      "write committed behind an error answer",
      "write committed behind an error answer",
    ]);
    // With an unknown outcome the same read is allowed.
    const unknown = proWrite(true, 0, 10, { status: 503, outcome: "unknown" });
    expect(kinds(history([unknown, proRead(true, 1000, 1)], { pros: [{ id: "p1", active: true }] }))).toEqual([]);
  });

  it("sees a producer batch stored behind an error, and an eventId created twice", () => {
    const events = [{ eventId: "e1", userId: "u1" }];
    const first = req({ op: "producer: events", start: 0, end: 10, status: 503, meta: { events } });
    const retry = req({
      op: "producer: events",
      start: 20,
      end: 30,
      body: [{ eventId: "e1", status: "duplicate", notificationId: "n1" }],
      meta: { events },
    });
    const stored = {
      events: [{ producer: "p", eventId: "e1", userId: "u1", notificationId: "n1" }],
      notifications: [{ id: "n1", userId: "u1", read: false, deleted: false }],
    };
    expect(kinds(history([first, retry], stored))).toContain("write committed behind an error answer");
    const twice = req({
      op: "producer: events",
      start: 20,
      end: 30,
      body: [{ eventId: "e1", status: "created", notificationId: "n1" }],
      meta: { events },
    });
    const once = req({
      op: "producer: events",
      start: 0,
      end: 10,
      body: [{ eventId: "e1", status: "created", notificationId: "n1" }],
      meta: { events },
    });
    expect(kinds(history([once, twice], stored))).toContain("eventId created twice");
  });

  it("sees an acknowledged delete lost, and a count below the acknowledged writes", () => {
    const events = [{ eventId: "e1", userId: "u1" }];
    const made = req({
      op: "producer: events",
      start: 0,
      end: 10,
      body: [{ eventId: "e1", status: "created", notificationId: "n1" }],
      meta: { events },
    });
    const read = req({ start: 20, end: 30, meta: { user: "u1", write: "read", ids: ["n1"] } });
    const count = (value: number) => req({ start: 1000, end: 1005, inst: 1, meta: { user: "u1", read: "count", count: value } });
    const db = {
      events: [{ producer: "p", eventId: "e1", userId: "u1", notificationId: "n1" }],
      notifications: [{ id: "n1", userId: "u1", read: true, deleted: false }],
    };
    expect(kinds(history([made, read, count(0)], db))).toEqual([]);
    expect(kinds(history([made, read, count(1)], db))).toEqual(["stale count (memory served past its bound)"]);
    expect(kinds(history([made, count(0)], db))).toEqual(["count below the acknowledged writes (a lost write, or one behind an error)"]);
    const unread = { ...db, notifications: [{ id: "n1", userId: "u1", read: false, deleted: false }] };
    expect(kinds(history([made, read], unread))).toEqual(["acknowledged write lost"]);
  });

  it("sees a revoked session accepted past the bound", () => {
    const out = req({ start: 0, end: 10, meta: { revokes: "session:s1" } });
    const early = req({ start: 100, end: 110, inst: 1, cred: "session:s1" });
    const late = req({ start: 600, end: 610, inst: 1, cred: "session:s1" });
    expect(kinds(history([out, early]))).toEqual([]);
    expect(kinds(history([out, late]))).toEqual(["revoked credential accepted"]);
  });

  it("sees a gated change applied without a second person, and a request answered past the deadline", () => {
    expect(kinds(history([req({ start: 0, end: 10, meta: { gated: "own" } })]))).toEqual(["gated change without a second person"]);
    const activations = [{ action: "pro.activate", targetId: "p1", actorId: "a", changeRequestId: null, bypassed: false }];
    expect(kinds(history([], { activations }))).toEqual(["gated change without a second person"]);
    expect(kinds(history([req({ start: 0, end: 60_000 })]))).toEqual(["unanswered past the deadline"]);
  });

  it("sees a push sent twice with no crash between, or while the first send was still open", () => {
    const deliveries = [{ id: "d1", eventId: "e1", status: "sent", attempts: 1, notificationId: "n1", path: "/push/a" }];
    const push = (arrivedAt: number, closedAt: number) => ({
      t: "push" as const,
      path: "/push/a",
      title: "Soak e1",
      arrivedAt,
      closedAt,
      status: 201,
    });
    expect(kinds(history([], { deliveries }, { pushes: [push(0, 10)] }))).toEqual([]);
    expect(kinds(history([], { deliveries }, { pushes: [push(0, 10), push(100, 110)] }))).toEqual(["push delivered twice"]);
    expect(
      kinds(history([], { deliveries }, { pushes: [push(0, 10), push(100, 110)], lives: [{ t: "life", inst: 1, ev: "killed", at: 50 }] })),
    ).toEqual([]);
    expect(
      kinds(history([], { deliveries }, { pushes: [push(0, 200), push(100, 300)], lives: [{ t: "life", inst: 1, ev: "killed", at: 50 }] })),
    ).toEqual(["push sent while its lease was held"]);
    expect(kinds(history([], { deliveries }))).toEqual(["push not delivered"]);
  });

  it("lets a push be sent again after the push service cut the connection its answer was on, once", () => {
    const deliveries = [{ id: "d1", eventId: "e1", status: "sent", attempts: 2, notificationId: "n1", path: "/push/a" }];
    const push = (arrivedAt: number) => ({
      t: "push" as const,
      path: "/push/a",
      title: "Soak e1",
      arrivedAt,
      closedAt: arrivedAt + 10,
      status: 201,
    });
    const cut = (arrivedAt: number) => ({ t: "push-cut" as const, path: "/push/a", title: "Soak e1", arrivedAt, cutAt: arrivedAt + 15 });
    expect(kinds(history([], { deliveries }, { pushes: [push(0), push(3000)], cuts: [cut(0)] }))).toEqual([]);
    // A cut of another push, or of the second send, excuses nothing; nor does one cut a third send.
    expect(kinds(history([], { deliveries }, { pushes: [push(0), push(3000)], cuts: [cut(3000)] }))).toEqual(["push delivered twice"]);
    expect(kinds(history([], { deliveries }, { pushes: [push(0), push(3000), push(6000)], cuts: [cut(0)] }))).toEqual([
      "push delivered twice",
    ]);
  });

  it("sees an OFREP stream that heard nothing of a change", () => {
    const write = proWrite(true, 1000, 1010);
    const open = { t: "stream" as const, sid: 1, kind: "ofrep" as const, subject: "p1", inst: 1, ev: "open" as const, at: 0 };
    const heard = { ...open, ev: "event" as const, at: 1500, value: "etag" };
    const db = { pros: [{ id: "p1", active: true }] };
    expect(kinds(history([write], db, { streams: [open, heard] }))).toEqual([]);
    expect(kinds(history([write], db, { streams: [open] }))).toEqual(["stream missed a change"]);
  });

  it("counts a change acknowledged by a replayed answer from its first attempt (seed 42, 600 s: heard before the replay began)", () => {
    const first = proWrite(true, 1000, 1400, { key: "k1", cred: "session:admin-b", outcome: "unknown", status: 0 });
    const replay = proWrite(true, 1500, 1600, { key: "k1", cred: "session:admin-b", replayed: true });
    const open = { t: "stream" as const, sid: 1, kind: "ofrep" as const, subject: "p1", inst: 1, ev: "open" as const, at: 0 };
    const heard = { ...open, ev: "event" as const, at: 1450, value: "etag" };
    const db = { pros: [{ id: "p1", active: true }] };
    expect(kinds(history([first, replay], db, { streams: [open, heard] }))).toEqual([]);
    expect(kinds(history([first, replay], db, { streams: [open] }))).toEqual(["stream missed a change"]);
  });
});

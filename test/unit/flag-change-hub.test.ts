// The OFREP streams' hub on its own (server/ofrep/changes.ts): its bounds per stream address and per key, and
// what it sends every stream after a gap in the change feed. None of this reads the database.
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/client.js";
import { TooManyRequestsError } from "../../server/errors/errors.js";
import { createFlagChangeHub, type FlagChange, type FlagStream } from "../../server/ofrep/changes.js";

const noDb = {} as Db;
const fail = (err: unknown) => {
  throw err;
};

function stream(keyId: string, proId: string) {
  const got: FlagChange[] = [];
  const s: FlagStream = { keyId, proId, send: (change) => void got.push(change), close: () => {} };
  return { s, got };
}

describe("the OFREP stream hub", () => {
  it("refuses a stream past the bound of its stream address (key and pro) with a 429, and takes one once a stream leaves", () => {
    const hub = createFlagChangeHub(noDb, fail, { perTarget: 2, perKey: 100 });
    const leave = hub.add(stream("k1", "p1").s);
    hub.add(stream("k1", "p1").s);
    expect(() => hub.add(stream("k1", "p1").s)).toThrow(TooManyRequestsError);
    // Another pro, or another key on the same pro, is another address.
    hub.add(stream("k1", "p2").s);
    hub.add(stream("k2", "p1").s);
    leave();
    leave();
    hub.add(stream("k1", "p1").s);
    expect(hub.size()).toBe(4);
  });

  it("refuses a key's stream past its bound on the instance, whatever pro it follows", () => {
    const hub = createFlagChangeHub(noDb, fail, { perTarget: 100, perKey: 2 });
    const leave = hub.add(stream("k1", "p1").s);
    hub.add(stream("k1", "p2").s);
    expect(() => hub.add(stream("k1", "p3").s)).toThrow(/per key/);
    hub.add(stream("k2", "p3").s);
    leave();
    hub.add(stream("k1", "p3").s);
    expect(hub.size()).toBe(3);
  });

  it("tells every stream to evaluate again, without an ETag, after a gap in the change feed", async () => {
    const hub = createFlagChangeHub(noDb, fail);
    const [a, b] = [stream("k1", "p1"), stream("k2", "p2")];
    hub.add(a.s);
    hub.add(b.s);
    await hub.refetchAll();
    expect([a.got, b.got]).toEqual([[{}], [{}]]);
  });
});

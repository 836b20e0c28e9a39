// The bounded memory of sessions and keys (server/memory/recall.ts): what it forgets, and the one race it
// closes (an answer read before a change, remembered after the change was announced).
import { describe, expect, it } from "vitest";
import { createRecall } from "../../server/memory/recall.js";

type Answer = { user: string; session: string; expiresAt: number };
const recall = (now = () => 0, max = 10) =>
  createRecall<Answer>({
    max,
    tagsOf: (a) => [`user:${a.user}`, `session:${a.session}`],
    usable: (a, at) => a.expiresAt > at,
    now,
  });
const answer = (user: string, session: string, expiresAt = 1000): Answer => ({ user, session, expiresAt });

describe("createRecall", () => {
  it("gives back what it was given, until a tag it was read from is forgotten", () => {
    const r = recall();
    r.remember("t1", answer("u1", "s1"), r.epoch());
    r.remember("t2", answer("u1", "s2"), r.epoch());
    r.remember("t3", answer("u2", "s3"), r.epoch());
    expect(r.get("t1")).toEqual(answer("u1", "s1"));
    r.forget("user:u1");
    expect([r.get("t1"), r.get("t2"), r.get("t3")]).toEqual([undefined, undefined, answer("u2", "s3")]);
    r.forget("session:s3");
    expect(r.size()).toBe(0);
  });

  it("refuses an answer read before something was forgotten: it may be from before the change", () => {
    const r = recall();
    const epoch = r.epoch(); // the read starts
    r.forget("session:s1"); // the change is announced while the read is under way
    r.remember("t1", answer("u1", "s1"), epoch); // the read ends, with the answer from before the change
    expect(r.get("t1")).toBeUndefined();
    r.remember("t1", answer("u1", "s1"), r.epoch()); // read again afterwards: kept
    expect(r.get("t1")).toBeDefined();
  });

  it("forgets everything at clear, and an answer read before the clear is refused", () => {
    const r = recall();
    const epoch = r.epoch();
    r.remember("t1", answer("u1", "s1"), epoch);
    r.clear();
    r.remember("t2", answer("u2", "s2"), epoch);
    expect([r.get("t1"), r.get("t2"), r.size()]).toEqual([undefined, undefined, 0]);
  });

  it("drops an answer once it is no longer usable (expired)", () => {
    let now = 0;
    const r = recall(() => now);
    r.remember("t1", answer("u1", "s1", 100), r.epoch());
    now = 99;
    expect(r.get("t1")).toBeDefined();
    now = 100;
    expect(r.get("t1")).toBeUndefined();
    expect(r.size()).toBe(0);
  });

  it("keeps at most `max` answers, the oldest going first, and its tags with it", () => {
    const r = recall(() => 0, 2);
    for (const i of [1, 2, 3]) r.remember(`t${i}`, answer(`u${i}`, `s${i}`), r.epoch());
    expect([r.get("t1"), r.size()]).toEqual([undefined, 2]);
    r.forget("user:u1"); // nothing left to drop for it
    expect(r.size()).toBe(2);
  });
});

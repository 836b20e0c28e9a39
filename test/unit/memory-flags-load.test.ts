// The pros' statuses in memory (server/memory/flags.ts) while a load runs: a pro announced and read again
// during the load keeps what that read found, though the load's own rows, read from an older snapshot,
// arrive later. The database is a fake whose answers the test releases in the order it wants.
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/client.js";
import type { MemoryFeed } from "../../server/memory/feed.js";
import { createFlagMemory } from "../../server/memory/flags.js";

type Row = { proId: string; restrictionActive: boolean; cohortId: string | null; updatedAt: Date };
const row = (proId: string, restrictionActive: boolean): Row => ({ proId, restrictionActive, cohortId: null, updatedAt: new Date(0) });

/** A database whose SELECTs wait until the test answers them, in the order they were sent. */
function heldDb() {
  const pending: Array<(rows: Row[]) => void> = [];
  const db = { select: () => ({ from: () => ({ where: () => new Promise<Row[]>((resolve) => pending.push(resolve)) }) }) };
  return { db: db as unknown as Db, pending };
}

const vouching = { current: () => true } as MemoryFeed;
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Flag memory over a held database, its load started (the first SELECT waiting). */
function loadingFlags() {
  const { db, pending } = heldDb();
  const flags = createFlagMemory(db, (err) => {
    throw err;
  });
  flags.attach(vouching);
  return { flags, pending, loading: flags.reload() };
}

describe("the pros' statuses while a load runs", () => {
  it("keeps a re-read made during the load over the load's older rows", async () => {
    const { flags, pending, loading } = loadingFlags();
    // During the load, pro-1 is announced: its re-read answers the new status first.
    let released = false;
    flags.channels.pro_status!("pro-1", () => () => {
      released = true;
    });
    await settle();
    expect(pending).toHaveLength(2);
    pending[1]!([row("pro-1", true)]);
    await settle();
    expect(released).toBe(true);
    // Then the load's rows, from a snapshot taken before the change.
    pending[0]!([row("pro-1", false), row("pro-2", true)]);
    await loading;
    expect(flags.status("pro-1")).toMatchObject({ restrictionActive: true });
    expect(flags.status("pro-2")).toMatchObject({ restrictionActive: true });
  });

  it("keeps a deletion read during the load too", async () => {
    const { flags, pending, loading } = loadingFlags();
    flags.channels.pro_status!("pro-1", () => () => {});
    await settle();
    pending[1]!([]);
    await settle();
    pending[0]!([row("pro-1", true)]);
    await loading;
    expect(flags.status("pro-1")).toBeNull();
  });
});

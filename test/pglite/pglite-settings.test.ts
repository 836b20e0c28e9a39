// The embedded PGlite as db/client.ts opens it, for the memory `npm start` holds: a smaller shared_buffers,
// in memory and in a data folder alike, and a new data folder created outside this process.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../../db/client.js";

async function sharedBuffers(pgliteDir: string): Promise<string> {
  const handle = await createDb({ pgliteDir });
  try {
    // PGlite's driver answers { rows } (postgres.js an array).
    const result = (await handle.db.execute(sql`show shared_buffers`)) as unknown as { rows: { shared_buffers: string }[] };
    return result.rows[0]!.shared_buffers;
  } finally {
    await handle.close();
  }
}

describe("PGlite settings", () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it("creates a new data folder without keeping initdb's memory in this process, and the data survives a restart", async () => {
    const folder = mkdtempSync(join(tmpdir(), "rn-pglite-"));
    folders.push(folder);
    // PGlite's WASM memories and buffers count as external memory. When this process created the folder, initdb's
    // temporary instance and its heap copy stayed behind: external grew ~570 MB, against ~145 MB for the one
    // instance that stays. First in the file, so no garbage of other tests brings a collection that hides that.
    const externalBefore = process.memoryUsage().external;
    const first = await createDb({ pgliteDir: folder });
    const grown = process.memoryUsage().external - externalBefore;
    try {
      expect(existsSync(join(folder, "PG_VERSION"))).toBe(true);
      expect(grown).toBeLessThan(300 * 1024 * 1024);
      await first.db.execute(sql`create table kept (v text)`);
      await first.db.execute(sql`insert into kept values ('still here')`);
    } finally {
      await first.close();
    }
    const again = await createDb({ pgliteDir: folder });
    try {
      const result = (await again.db.execute(sql`select v from kept`)) as unknown as { rows: { v: string }[] };
      expect(result.rows).toEqual([{ v: "still here" }]);
    } finally {
      await again.close();
    }
  });

  it("runs an in-memory database with shared_buffers at 32MB", async () => {
    expect(await sharedBuffers("memory://")).toBe("32MB");
  });

  it("runs a data folder with shared_buffers at 32MB, on its first start and after a restart", async () => {
    const folder = mkdtempSync(join(tmpdir(), "rn-pglite-"));
    folders.push(folder);
    expect(await sharedBuffers(folder)).toBe("32MB");
    expect(await sharedBuffers(folder)).toBe("32MB");
  });
});

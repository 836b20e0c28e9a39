// The embedded PGlite runs with the settings db/client.ts gives it (a smaller shared_buffers, for the
// memory `npm start` holds), in memory and in a data folder alike.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../../db/client.js";
import { testDbKind } from "../helpers/db.js";

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

describe.skipIf(testDbKind() !== "pglite")("PGlite settings", () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
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

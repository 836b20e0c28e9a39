// Issue AE's settings. CLUSTER_WORKERS (server/cluster.ts): a count or `auto`, and only on PostgreSQL, where workers share state
// through the database; PGlite's folder belongs to one process.
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { configErrorOf } from "../helpers/config.js";

const postgres = { DATABASE_URL: "postgres://u@127.0.0.1:5432/db", BETTER_AUTH_SECRET: "s".repeat(32) };

describe("CLUSTER_WORKERS", () => {
  it("is 1 (this process serves) unless set", () => {
    expect(loadConfig({}).clusterWorkers).toBe(1);
    expect(loadConfig(postgres).clusterWorkers).toBe(1);
  });

  it("takes a count, or auto for one worker per core", () => {
    expect(loadConfig({ ...postgres, CLUSTER_WORKERS: "4" }).clusterWorkers).toBe(4);
    expect(loadConfig({ ...postgres, CLUSTER_WORKERS: " Auto " }).clusterWorkers).toBe(availableParallelism());
  });

  it("refuses anything else with one line naming it", () => {
    for (const value of ["0", "-1", "2.5", "many", "257"]) {
      expect(configErrorOf({ ...postgres, CLUSTER_WORKERS: value }), value).toMatch(
        /^CLUSTER_WORKERS: must be a whole number from 1 to 256, or auto/,
      );
    }
  });

  it("refuses more than one worker on the embedded PGlite, and allows one", () => {
    expect(configErrorOf({ CLUSTER_WORKERS: "2" })).toMatch(/^CLUSTER_WORKERS: needs DATABASE_URL \(PostgreSQL\)/);
    expect(loadConfig({ CLUSTER_WORKERS: "1" }).clusterWorkers).toBe(1);
  });
});

describe("LOG_REQUESTS", () => {
  it("is completed unless set, takes both or errors, and refuses anything else", () => {
    expect(loadConfig({}).logRequests).toBe("completed");
    expect(loadConfig({ LOG_REQUESTS: "both" }).logRequests).toBe("both");
    expect(loadConfig({ LOG_REQUESTS: "errors" }).logRequests).toBe("errors");
    expect(configErrorOf({ LOG_REQUESTS: "some" })).toMatch(/^LOG_REQUESTS: must be completed, both or errors/);
  });
});

describe("DB_POOL_SIZE", () => {
  it("leaves the pool at db/client.ts's default unless set, and takes a count from 1 to 100", () => {
    expect(loadConfig(postgres).poolSize).toBeUndefined();
    expect(loadConfig({ ...postgres, DB_POOL_SIZE: "4" }).poolSize).toBe(4);
    expect(loadConfig({ ...postgres, DB_POOL_SIZE: " 100 " }).poolSize).toBe(100);
  });

  it("refuses anything else with one line naming it", () => {
    for (const value of ["0", "-1", "2.5", "ten", "101", "1e1"]) {
      const error = configErrorOf({ ...postgres, DB_POOL_SIZE: value });
      expect({ value, error }).toEqual({ value, error: "DB_POOL_SIZE: must be a whole number from 1 to 100" });
    }
  });

  it("is said to be ignored on the embedded PGlite, which has one connection", () => {
    expect(loadConfig({ DB_POOL_SIZE: "4" }).warnings).toContainEqual(
      expect.stringMatching(/^DB_POOL_SIZE is ignored on the embedded PGlite/),
    );
    expect(loadConfig({ ...postgres, DB_POOL_SIZE: "4" }).warnings).toEqual([]);
  });
});

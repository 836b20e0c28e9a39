// What the instances' memory did (server/memory/), read from the process's metrics: tests compare differences.
import { wroteMemory } from "../../server/memory/fence.js";
import { registry } from "../../server/observability/metrics.js";

export type MemorySource = "memory" | "database";

/** Hot reads of `kind` answered so far from `source` (memory_reads_total), by every app of this process. */
export async function memoryReads(kind: string, source: MemorySource): Promise<number> {
  const values = (await registry.getSingleMetric("memory_reads_total")?.get())?.values ?? [];
  return values.find((v) => v.labels.kind === kind && v.labels.source === source)?.value ?? 0;
}

/** Runs `read` and says where its hot read of `kind` was answered from (it must make exactly one). */
export async function answeredFrom<T>(kind: string, read: () => Promise<T>): Promise<{ value: T; source: MemorySource }> {
  const [memory, database] = [await memoryReads(kind, "memory"), await memoryReads(kind, "database")];
  const value = await read();
  const fromMemory = (await memoryReads(kind, "memory")) - memory;
  const fromDatabase = (await memoryReads(kind, "database")) - database;
  if (fromMemory + fromDatabase !== 1)
    throw new Error(`expected one ${kind} read, saw ${fromMemory} from memory and ${fromDatabase} from the database`);
  return { value, source: fromMemory ? "memory" : "database" };
}

/**
 * A test's own write straight to the tables (a role, an expiry): like any write of this process, memory waits
 * until it has heard it before serving again (server/memory/fence.ts), so the next request sees it. Without
 * this, an instance on PostgreSQL sees it within memory's bound (0.5 s), not on the very next request.
 */
export async function byHand<T>(write: PromiseLike<T>): Promise<T> {
  const result = await write;
  wroteMemory();
  return result;
}

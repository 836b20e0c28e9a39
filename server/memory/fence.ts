// Read-your-writes for memory (issue W): after a write of this process that may change what memory holds,
// no instance memory of this process is served again until it has heard a heartbeat sent after the write
// (MemoryFeed.fence). A write's own announcement reaches memory a few milliseconds later; the caller that
// made the write must not read the value from before it meanwhile. Process-wide, since a write may come
// through any door: REST, tRPC, a test's or script's caller, better-auth's routes.
import type { MemoryFeed } from "./feed.js";

const feeds = new Set<MemoryFeed>();

/** Fences `feed` at every write of this process from now on; returns the function that stops it. */
export function fenceOnWrites(feed: MemoryFeed): () => void {
  feeds.add(feed);
  return () => feeds.delete(feed);
}

/** A write that may change memory has just committed (or may have). */
export function wroteMemory(): void {
  for (const feed of feeds) feed.fence();
}

/**
 * A user's own notification procedures and the producer API change no memory but unread counts, which they
 * drop themselves (server/memory/counts.ts): they need not fence.
 */
export const procedureMayChangeMemory = (path: string) => !path.startsWith("notifications.");

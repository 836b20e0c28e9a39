// This instance's memory of what its hot reads need (issue W; docs/scaling.md "Reads from memory"): the
// pros' stored statuses, the callers' sessions and API keys, users' unread counts, fed by the database's
// announcements and served only while the feed vouches for it.
import type { FastifyInstance, FastifyRequest, RouteOptions } from "fastify";
import type { Db, DbHandle } from "../../db/client.js";
import { answerableSession } from "../auth/session.js";
import { addRouteHook, routeMethods } from "../http/route-hooks.js";
import { reportHeartbeatAge } from "../observability/metrics.js";
import { createUnreadCountMemory, type UnreadCountMemory } from "./counts.js";
import { type FeedOptions, type MemoryFeed, startMemoryFeed } from "./feed.js";
import { fenceOnWrites, procedureMayChangeMemory, wroteMemory } from "./fence.js";
import { createFlagMemory, type FlagMemory } from "./flags.js";
import { createIdentityMemory, type IdentityMemory } from "./identity.js";

export type Memory = { feed: MemoryFeed; flags: FlagMemory; identity: IdentityMemory; unreadCounts: UnreadCountMemory };

/** Loads the memory and starts following the database; resolves once loaded. */
export async function startMemory(db: Db, listen: DbHandle["listen"], options: FeedOptions): Promise<Memory> {
  const flags = createFlagMemory(db, options.onError, options.clock);
  const identity = createIdentityMemory((resolved, now) => answerableSession(resolved.session, now));
  const unreadCounts = createUnreadCountMemory();
  const feed = await startMemoryFeed(db, listen, [flags, identity, unreadCounts], options);
  flags.attach(feed);
  identity.attach(feed);
  unreadCounts.attach(feed);
  reportHeartbeatAge(feed.age);
  return { feed, flags, identity, unreadCounts };
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a request may have written what memory holds. OFREP's evaluations (POSTs that only read), a user's
 * own notification writes and the producer API (under /api/notifications, or tRPC's notifications.*
 * procedures) never do; any other write may (an admin's flag change, a sign-out, a role change).
 */
export function mayChangeMemory(request: Pick<FastifyRequest, "method" | "url">): boolean {
  if (READS.has(request.method)) return false;
  const path = request.url.split("?", 1)[0]!;
  if (path.startsWith("/api/notifications/") || path === "/api/notifications" || path.startsWith("/ofrep/")) return false;
  if (path.startsWith("/trpc/")) return path.slice("/trpc/".length).split(",").some(procedureMayChangeMemory);
  return true;
}

/**
 * A caller reads its own writes (fence.ts): procedures fence after their mutations; this covers the writes
 * that are no procedure (better-auth's sign-out, its admin routes), once answered.
 */
export function fenceWrites(app: FastifyInstance, memory: Memory): void {
  const stop = fenceOnWrites(memory.feed);
  app.addHook("onClose", async () => stop());
  // Only routes whose template may take such a write get the hook (not OFREP's, not a read's).
  const writes = (route: RouteOptions) => routeMethods(route).some((method) => mayChangeMemory({ method, url: route.url }));
  addRouteHook(app, "onSend", writes, (request, _reply, payload, done) => {
    if (mayChangeMemory(request)) wroteMemory();
    done(null, payload);
  });
}

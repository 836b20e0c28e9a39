import type { Context } from "../../context.js";
import { procedureMayChangeMemory, wroteMemory } from "../../memory/fence.js";

/**
 * After a mutation that may change what memory holds (a flag, a user, a key), memory waits for proof it has
 * heard the change before it serves again (server/memory/fence.ts): callers read their own writes; after a
 * notification procedure, only the caller's unread count is read afresh (server/memory/counts.ts). Also
 * after a failure, which may come after the commit (a lost COMMIT answer). Inside a keyed request's
 * transaction both wait for it to settle (fence.ts, afterSettling). Run by every-call.ts once a call ends.
 */
export function fenceAfterCall(ctx: Context, type: string, path: string): void {
  if (type !== "mutation") return;
  if (procedureMayChangeMemory(path)) wroteMemory();
  // A user's own notification writes change only their unread count, which they read afresh.
  else if (ctx.user) ctx.unreadCounts?.changed([ctx.user.id]);
}

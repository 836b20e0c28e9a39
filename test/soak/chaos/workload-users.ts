// A signed-in user: reads the inbox and the unread count (REST and tRPC), marks read, reads all, deletes one
// or several, every write with an Idempotency-Key and sent again with it after a 503 or no answer. The user is
// the one writer of their notifications' read and deleted state, so every count they read can be judged.
import { call, dataOf, instanceCount } from "./client.js";
import { newKey, sendRetrying } from "./send.js";
import { actorRng, type Person, pause, running } from "./world.js";

const countOfTrpc = (body: unknown) => {
  const data = (body as { result?: { data?: unknown } })?.result?.data as { json?: { count?: number }; count?: number } | undefined;
  return data?.json?.count ?? data?.count;
};

export async function userLoop(user: Person, label: string) {
  const r = actorRng(label);
  const session = user.session;
  let known: string[] = [];
  const meta = (extra: Record<string, unknown>) => ({ user: user.id, ...extra });
  while (running()) {
    const roll = r.int(100);
    if (roll < 22 || !known.length) {
      const a = await call({
        actor: label,
        op: "user: list inbox",
        inst: r.int(instanceCount()),
        method: "GET",
        path: "/api/notifications?limit=50",
        session,
        metaFrom: (_, b) => ({ count: (b as { data?: { unread_count?: number } } | undefined)?.data?.unread_count }),
        meta: meta({ read: "count" }),
      });
      const list = dataOf<{ notifications: { id: string; readAt?: string | null; read?: boolean }[] }>(a);
      if (list) known = list.notifications.map((n) => n.id);
    } else if (roll < 40) {
      await call({
        actor: label,
        op: "user: unread count",
        inst: r.int(instanceCount()),
        method: "GET",
        path: "/api/notifications/unread-count",
        session,
        metaFrom: (_, b) => ({ count: (b as { data?: { count?: number } } | undefined)?.data?.count }),
        meta: meta({ read: "count" }),
      });
    } else if (roll < 52) {
      await call({
        actor: label,
        op: "user: tRPC unreadCount",
        inst: r.int(instanceCount()),
        method: "GET",
        path: "/trpc/notifications.unreadCount",
        session,
        metaFrom: (_, b) => ({ count: countOfTrpc(b) }),
        meta: meta({ read: "count", trpc: true }),
      });
    } else if (roll < 72) {
      const id = r.pick(known);
      await sendRetrying(r, {
        actor: label,
        op: "user: mark read",
        method: "PATCH",
        path: `/api/notifications/${id}/read`,
        session,
        idempotencyKey: newKey(),
        meta: meta({ write: "read", ids: [id] }),
      });
    } else if (roll < 80) {
      await sendRetrying(r, {
        actor: label,
        op: "user: read all",
        method: "PATCH",
        path: "/api/notifications/read-all",
        session,
        idempotencyKey: newKey(),
        meta: meta({ write: "read-all" }),
      });
    } else if (roll < 92) {
      const id = known.pop()!;
      await sendRetrying(r, {
        actor: label,
        op: "user: delete one",
        method: "DELETE",
        path: `/api/notifications/${id}`,
        session,
        idempotencyKey: newKey(),
        meta: meta({ write: "delete", ids: [id] }),
      });
    } else {
      const ids = known.splice(0, 1 + r.int(3));
      await sendRetrying(r, {
        actor: label,
        op: "user: bulk delete",
        method: "DELETE",
        path: "/api/notifications/bulk",
        body: { ids },
        session,
        idempotencyKey: newKey(),
        meta: meta({ write: "delete", ids }),
      });
    }
    await pause(50 + r.int(150));
  }
}

// Topic collapse (docs/api.md#topic-collapse): a newer delivery for the same subscription and topic supersedes
// an older one not yet sent. The push service does the same with RFC 8030's Topic header for what it holds
// undelivered; this does it for what is still in our own queue, so a burst of updates costs one send.
//
// The rule for the race with a sender: a delivery under a live lease is never superseded. Its instance may be
// sending it right now, and a superseded row must mean "never sent"; it is sent, and the newer one after it
// (which the push service then collapses with Topic if the first is still undelivered there). A delivery
// between attempts, or whose lease ran out (its instance died or lost the claim), has its lease cleared as it
// is superseded: the claim's token no longer matches, and the queue's conditional update before each send
// also asks for status `queued`, so an instance that still holds it in memory sends nothing.
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { pushDeliveries } from "../../db/schema/index.js";

type Collapsible = { subscriptionId: string; topic: string | null };

/**
 * Within one batch, in order: the index of each delivery a later one of the same subscription and topic
 * supersedes. Only the last of each is queued; the others are written superseded.
 */
export function supersededInBatch(deliveries: readonly Collapsible[]): Set<number> {
  const last = new Map<string, number>();
  deliveries.forEach((d, index) => {
    if (d.topic) last.set(`${d.subscriptionId}|${d.topic}`, index);
  });
  const superseded = new Set<number>();
  deliveries.forEach((d, index) => {
    if (d.topic && last.get(`${d.subscriptionId}|${d.topic}`) !== index) superseded.add(index);
  });
  return superseded;
}

/**
 * Marks superseded the queued, unleased deliveries of these subscription and topic pairs, in the transaction
 * that queues their newer ones. Answers their ids. Rows are locked one by one as updated, so a claim that
 * commits first wins (its lease is then live and the row is skipped), and a claim after finds it superseded.
 */
export async function supersedeQueued(tx: Db, pairs: readonly Collapsible[]): Promise<string[]> {
  const wanted = new Map<string, Set<string>>();
  for (const { subscriptionId, topic } of pairs) {
    if (!topic) continue;
    wanted.set(topic, (wanted.get(topic) ?? new Set()).add(subscriptionId));
  }
  if (!wanted.size) return [];
  const superseded: string[] = [];
  // Grouped by topic: one statement per topic in the batch (a batch is at most 100 events).
  for (const [topic, subscriptions] of wanted) {
    const rows = await tx
      .update(pushDeliveries)
      .set({ status: "superseded", leaseUntil: null, leaseToken: null, lastError: "Superseded by a newer push with the same topic" })
      .where(
        and(
          eq(pushDeliveries.status, "queued"),
          eq(pushDeliveries.topic, topic),
          inArray(pushDeliveries.subscriptionId, [...subscriptions]),
          or(isNull(pushDeliveries.leaseUntil), lt(pushDeliveries.leaseUntil, sql`now()`)),
        ),
      )
      .returning({ id: pushDeliveries.id });
    superseded.push(...rows.map((r) => r.id));
  }
  return superseded;
}

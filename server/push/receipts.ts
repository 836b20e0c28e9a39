// Delivery receipts (docs/api.md#delivery-receipts): a service worker, or the page a declarative push opened,
// reports that a push was displayed or clicked, with the receipt token the push carried (receipt-token.ts).
// RFC 8030's own delivery receipts are implemented by no push service, so the app is the only witness.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import type { receiptStages } from "../../db/schema/delivery-statuses.js";
import { pushDeliveries } from "../../db/schema/index.js";
import { countPushStage } from "../observability/metrics.js";
import type { ReceiptTokens } from "./receipt-token.js";

export type ReceiptStage = (typeof receiptStages)[number];

/**
 * Records a stage once: its time is the first report's, and a repeat changes nothing. A click also records
 * the display when none was reported (a declarative push shows with no code to report it). Answers false for
 * a token that is malformed, forged or expired, or whose delivery is gone (retention, its user removed).
 */
export async function recordReceipt(db: Db, tokens: ReceiptTokens, receipt: unknown, stage: ReceiptStage): Promise<boolean> {
  const deliveryId = tokens.verify(receipt);
  if (!deliveryId) return false;
  const now = sql`now()`;
  const firstTime = stage === "clicked" ? isNull(pushDeliveries.clickedAt) : isNull(pushDeliveries.displayedAt);
  const [changed] = await db
    .update(pushDeliveries)
    .set(
      stage === "clicked"
        ? { clickedAt: now as never, displayedAt: sql`coalesce(${pushDeliveries.displayedAt}, now())` as never }
        : { displayedAt: now as never },
    )
    .where(and(eq(pushDeliveries.id, deliveryId), firstTime))
    // now() is the transaction's start, the same for both columns: equal, the click just set the display too.
    .returning({ displayedNow: sql<boolean>`${pushDeliveries.displayedAt} = ${pushDeliveries.clickedAt}` });
  if (changed) {
    countPushStage(stage);
    if (stage === "clicked" && changed.displayedNow) countPushStage("displayed");
    return true;
  }
  // Nothing changed: a repeat (still a 204), or no such delivery (404).
  const [known] = await db.select({ id: pushDeliveries.id }).from(pushDeliveries).where(eq(pushDeliveries.id, deliveryId));
  return known !== undefined;
}

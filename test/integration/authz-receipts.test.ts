// The authorization matrix for POST /api/notifications/receipts (test/helpers/authz-rows-receipts.ts): the
// receipt is the only authority, so every kind of caller gets the answer the receipt alone decides, and a
// caller's session never widens or narrows it. CSRF does not apply: nothing ambient is read.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { receiptTokens } from "../../server/push/receipt-token.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { RECEIPT_CALLERS, receiptCallerHeaders, receiptRow } from "../helpers/authz-rows-receipts.js";
import { queueDeliveryTo } from "../helpers/push.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("receipts × every kind of caller", () => {
  // With VAPID keys the queue runs; the delivery goes to a name no test resolver answers, so nothing leaves.
  const t = useTestApp({ push: { vapid } });
  const tokens = receiptTokens(vapid.privateKey);

  it.each(RECEIPT_CALLERS)("%s: a live receipt is 204, a dead one 404, whoever asks", async (as) => {
    const user = await t().signUp();
    const admin = await t().signUp({ admin: true });
    const apiKey = (await insertApiKey(t().db.db, { scopes: ["notifications:write"] })).headers["x-api-key"]!;
    const { deliveryId } = await queueDeliveryTo(t().db.db, user.id, `https://push.public.test/${randomUUID()}`);
    const headers = { "content-type": "application/json", ...receiptCallerHeaders(as, { user, admin, apiKey }) };
    const post = (receipt: string) =>
      t().app.inject({ method: "POST", url: "/api/notifications/receipts", headers, payload: { receipt, stage: "displayed" } });
    expect((await post(tokens.sign(deliveryId, new Date(Date.now() + 60_000)))).statusCode).toBe(receiptRow.live);
    expect((await post(tokens.sign(randomUUID(), new Date(Date.now() + 60_000)))).statusCode).toBe(receiptRow.dead);
  });

  it("a session cookie from an untrusted origin is refused, as on every write", async () => {
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/receipts",
      headers: { "content-type": "application/json", origin: "https://evil.example", cookie: "better-auth.session_token=x" },
      payload: { receipt: "x", stage: "displayed" },
    });
    expect(res.statusCode).toBe(403);
  });
});

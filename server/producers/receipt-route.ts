// The receipts door (docs/api.md#delivery-receipts): POST /api/notifications/receipts {receipt, stage} → 204,
// with no session. The receipt token is the whole authority: it names one delivery, says only "this was
// displayed/clicked", and expires. CSRF does not apply: no cookie or other ambient credential is read, so a
// page that makes a browser post here can only report a receipt it already holds. Browsers may call it from
// the app's origin (APP_BASE_URL) and CORS_ORIGINS, without credentials (app.ts's CORS for this path).
import type { FastifyCorsOptions } from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { receiptStages } from "../../db/schema/delivery-statuses.js";
import { AppError, TooManyRequestsError, validationError, zodDetails } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { RECEIPT_TOKEN_LENGTH, type ReceiptTokens } from "../push/receipt-token.js";
import { recordReceipt } from "../push/receipts.js";

export const RECEIPTS_PATH = "/api/notifications/receipts";

export const receiptInput = z.strictObject({
  receipt: z
    .string({ error: "is required" })
    .max(200, "must be at most 200 characters")
    .meta({ description: `The push's data.receipt (or navigate's push_receipt parameter), ${RECEIPT_TOKEN_LENGTH} characters` }),
  stage: z.enum(receiptStages, { error: "must be displayed or clicked" }).meta({ description: "What happened to the notification" }),
});

export type ReceiptDeps = {
  db: Db;
  /** Null when push is off: no receipt was ever handed out, so every one is unknown. */
  tokens: ReceiptTokens | null;
  /** Per client address: a receipt is cheap to check, but each valid one is a write. */
  limiter: RateLimiter;
  /** The path's CORS options (receiptCorsOptions), in place of the API's for this route and its preflight. */
  cors: FastifyCorsOptions;
};

export function registerReceiptRoute(app: FastifyInstance, deps: ReceiptDeps): void {
  // @fastify/cors merges a route's config.cors over the API's options: what the API sets and receipts must
  // not (exposed headers) is cleared here. The preflight gets a route of its own so it finds these options.
  const config = { cors: { exposedHeaders: null, ...deps.cors } };
  app.options(RECEIPTS_PATH, { config }, (_request, reply) => reply.callNotFound());
  app.post(RECEIPTS_PATH, { config }, async (request, reply) => {
    try {
      const verdict = await deps.limiter(request.ip);
      if (verdict.limited) throw new TooManyRequestsError(verdict.retryAfterSeconds);
      const parsed = receiptInput.safeParse(request.body ?? {});
      if (!parsed.success) throw validationError("Invalid receipt", zodDetails(parsed.error));
      const found = deps.tokens ? await recordReceipt(deps.db, deps.tokens, parsed.data.receipt, parsed.data.stage) : false;
      // One answer for unknown, expired and forged: which one it was helps nobody but a forger.
      if (!found) throw new AppError("NOT_FOUND", "Receipt not found or expired");
      return reply.status(204).send();
    } catch (err) {
      return sendError(reply, err);
    }
  });
}

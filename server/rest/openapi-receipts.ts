// The receipts path in /openapi.json (docs/api.md#delivery-receipts): no session and no key, the receipt token
// in the body is its only authority. Apart from openapi.ts, which is long enough.
import type { z } from "zod";
import { RECEIPTS_PATH, receiptInput } from "../producers/receipt-route.js";

const errors = (...codes: string[]) => Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/responses/E${code}` }]));

export function receiptPaths(jsonSchemaOf: (schema: z.ZodType, io: "input" | "output") => unknown) {
  return {
    [RECEIPTS_PATH]: {
      post: {
        operationId: "push.receipt",
        summary: "Report a push displayed or clicked, with the receipt it carried (no session: the receipt is the authority)",
        tags: ["Notifications"],
        security: [],
        requestBody: { required: true, content: { "application/json": { schema: jsonSchemaOf(receiptInput, "input") } } },
        responses: {
          "204": { description: "Recorded, or recorded before (a repeated stage changes nothing)" },
          ...errors("400", "403", "404", "413", "415", "429", "500", "503"),
        },
      },
    },
  };
}

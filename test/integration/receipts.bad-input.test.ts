// Bad input on POST /api/notifications/receipts (docs/api.md#delivery-receipts), generated with fast-check:
// whatever the body, never a 5xx; a body that is not {receipt, stage} is 400 naming the field, and any
// well-formed receipt that is not a live one is 404. Nothing is recorded for any of them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushDeliveries } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";
import { text } from "../helpers/bad-input-arbitraries.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("receipts: bad input", () => {
  const t = useTestApp({ push: { vapid }, limits: { receipts: { max: 100_000, timeWindowMs: 60_000 } } });

  it("answers 400 naming the field, or 404, never 5xx, and records nothing", async () => {
    const value = fc.oneof(text(80), fc.constantFrom(null, 5, true, [], {}, "displayed", "clicked", "A".repeat(48)));
    const body = fc.oneof(
      fc.record({ receipt: value, stage: value }, { requiredKeys: [] }),
      fc.record({ receipt: value, stage: fc.constantFrom("displayed", "clicked"), extra: value }),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await t().app.inject({
          method: "POST",
          url: "/api/notifications/receipts",
          headers: { "content-type": "application/json" },
          payload: JSON.stringify(payload) ?? "null",
        });
        expect([400, 404]).toContain(res.statusCode);
        const { error } = res.json() as { error: { code: string; message: string; details?: { field: string }[] } };
        if (res.statusCode !== 400) expect(error.code).toBe("NOT_FOUND");
        // A `__proto__` key anywhere refuses the whole body as malformed JSON (docs/api.md#errors): no field to name.
        else if (error.message === "Malformed JSON body") expect(JSON.stringify(payload)).toContain('"__proto__"');
        else if (error.code === "VALIDATION_ERROR") expect(error.details?.length).toBeGreaterThan(0);
      }),
      // The counterexample CI found (seed -1540127629): an array holding an object with an own __proto__ key.
      { numRuns: 150, examples: [[[{ ["__proto__"]: 0 }]]] },
    );
    const recorded = await t().db.db.select().from(pushDeliveries);
    expect(recorded.filter((d) => d.displayedAt || d.clickedAt)).toEqual([]);
  });
});

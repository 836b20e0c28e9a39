// A keyed test push never pushes twice (issue Y, finding 8): a failure after its pushes went out used to
// free the key, so a retry with the same key pushed again. Its answer is now kept once it has sent, even a
// 5xx, and the retry replays it. A failure before any push still frees the key ("a 5xx is not stored",
// idempotency.test.ts). The fault: a trigger refuses the test push's audit event, written after the sends.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { TEST_ORIGIN, type TestUser, useTestApp } from "../helpers/app.js";
import { type HoldingPushService, startHoldingPushService, subscribeAt } from "../helpers/push.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("a keyed test push that fails after its pushes went out", () => {
  const t = useTestApp({ push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 10_000 } });
  let holding: HoldingPushService;
  beforeAll(async () => {
    holding = await startHoldingPushService();
  });
  afterAll(async () => {
    await t().db.db.execute(sql`drop trigger if exists refuse_test_push on audit_events`);
    await holding.close();
  });

  const testPush = (admin: TestUser, key: string, target: TestUser) =>
    t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: { ...admin.headers, "idempotency-key": key, "content-type": "application/json", origin: TEST_ORIGIN },
      payload: { type: "system.once", title: "Once", targetUserId: target.id },
    });

  it("keeps its answer: a retry with the key replays the failure and pushes nothing", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    await subscribeAt(t(), target, holding.endpoint());
    await t().db.db.execute(sql`
      create or replace function refuse_test_push() returns trigger language plpgsql as
        $$ begin raise exception 'the audit log refuses this test push'; end $$`);
    await t().db.db.execute(
      sql.raw(`
      create trigger refuse_test_push before insert on audit_events for each row
        when (new.action = 'notification.test_push' and new.target_id = '${target.id}') execute function refuse_test_push()`),
    );
    void holding.arrived(1).then(() => holding.release());

    const key = `once-${randomBytes(6).toString("hex")}`;
    const first = await testPush(admin, key, target);
    expect(first.statusCode, first.body).toBe(500);
    expect(holding.requests).toHaveLength(1);

    const retry = await testPush(admin, key, target);
    expect([retry.statusCode, retry.body, retry.headers["idempotent-replayed"]]).toEqual([first.statusCode, first.body, "true"]);
    expect(holding.requests).toHaveLength(1);
  });
});

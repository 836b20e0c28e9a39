// Runs client-example/index.ts, as `npm run example` does, against a listening server and reads its output;
// then checks that it left the data as it found it (issue U.2): the same cohorts and gate checks, push
// subscriptions, inbox and sessions, so the console proposes the same next cohort number and no test push meets a fake
// endpoint.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { count, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notifications, pushSubscriptions, restrictionCohorts, sessions } from "../../db/schema/index.js";
import { TEST_PASSWORD, type TestUser, useTestApp } from "../helpers/app.js";

const run = promisify(execFile);

describe("client example", () => {
  const t = useTestApp();

  /** What the example could have changed, as the admin and the console see it, and the rows behind it. */
  async function state(admin: TestUser) {
    const api = t().caller(admin);
    const cohorts = await api.restriction.listCohorts();
    const [visible] = await t().db.db.select({ n: count() }).from(notifications).where(isNull(notifications.deletedAt));
    return {
      cohorts,
      gateChecks: await Promise.all(cohorts.map((c) => api.restriction.listGateChecks({ id: c.id }))),
      cohortRows: await t().db.db.select().from(restrictionCohorts),
      subscriptionRows: await t().db.db.select().from(pushSubscriptions),
      inbox: await api.notifications.list({ page: 1, limit: 100 }),
      unread: await api.notifications.unreadCount(),
      visibleNotifications: visible!.n,
      sessions: await t().db.db.select({ id: sessions.id }).from(sessions),
    };
  }

  it("signs in, reads cohorts and previews one, shows a typed refusal, reads the inbox, follows the live count, and leaves the data as it found it", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin);
    await api.notifications.testInApp({ type: "lead.created", title: "Lead for the example", targetUserId: admin.id });
    await api.restriction.createCohort({ cohortNumber: 7, proIds: ["pro-0001"] });
    await api.notifications.subscribe({
      endpoint: "https://push.example.com/send/the-admins-browser",
      p256dh: "BOr8wWW6EA_-oJOkDqpYDN4n-cT4cqS8YtSu4F06-hDNh1xzOgHzAWYu2H6-1Aww2J4Z9R1Go8x4PCRcz8JNHV8",
      auth: "4vQK-SvRAN5eo-8ASlrwA-",
    });
    const before = await state(admin);
    const url = await t().app.listen({ port: 0, host: "127.0.0.1" });

    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "client-example/index.ts", "--url", url, "--email", admin.email, "--password", TEST_PASSWORD],
      { timeout: 60_000 },
    );

    expect(stdout).toContain("# signed in");
    expect(stdout).toMatch(
      /# cohorts\n[\s\S]*"count": 1,[\s\S]*"cohortNumber": 7,[\s\S]*"status": "pending",[\s\S]*"createdAtIsDate": true/,
    );
    expect(stdout).toMatch(/# activating cohort 7 would\n[\s\S]*"blockedBy": "Activation blocked: no gate check has been run/);
    expect(stdout).toMatch(
      /# a new cohort 8 of pro-0001, pro-0002, pro-0003 \(previewed, not created\)\n[\s\S]*"cohortNumberTaken": false/,
    );
    expect(stdout).toMatch(
      /# a refused cohort \(cohortNumber 0, no pros\)\n[\s\S]*"code": "VALIDATION_ERROR",\n\s*"status": 400,[\s\S]*"field": "cohortNumber"[\s\S]*"field": "proIds"/,
    );
    expect(stdout).toMatch(/# notifications[\s\S]*"total": 1[\s\S]*"Lead for the example"/);
    expect(stdout).toMatch(/# unread count\n1\n/);
    expect(stdout).toMatch(/# live unread count\n[\s\S]*"onSubscribe": 1,\n\s*"afterANewNotification": 2,\n\s*"afterDeletingIt": 1/);
    expect(stdout).toMatch(/# push\n[\s\S]*"configured": false,\n\s*"yourActiveSubscriptions": 1/);
    expect(stdout).toContain("# left as found");

    // As it was: no cohort (the next number is still 8), no gate check, the one subscription untouched, the same
    // inbox, no session left open.
    expect(await state(admin)).toEqual(before);
  });
});

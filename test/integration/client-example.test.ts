// Runs client-example/index.ts, as `npm run example` does, against a listening server and reads its output.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

const run = promisify(execFile);

describe("client example", () => {
  const t = useTestApp();

  it("signs in, creates a cohort, is told activation is blocked, reads the inbox, follows the live unread count and subscribes to push", async () => {
    const admin = await t().signUp({ admin: true });
    await t().caller(admin).notifications.testInApp({ type: "lead.created", title: "Lead for the example", targetUserId: admin.id });
    const url = await t().app.listen({ port: 0, host: "127.0.0.1" });

    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "client-example/index.ts", "--url", url, "--email", admin.email, "--password", "correct-horse-battery"],
      { timeout: 60_000 },
    );

    expect(stdout).toContain("# signed in");
    expect(stdout).toMatch(/# cohort created[\s\S]*"status": "pending"[\s\S]*"createdAtIsDate": true/);
    expect(stdout).toMatch(/# gate check[\s\S]*"allGatesMet": false/);
    expect(stdout).toContain(
      '"message": "Activation blocked by unmet gates: response_rate 0.42 < 0.6; comparisons_done 12 < 50; legal_signoff missing"',
    );
    expect(stdout).toMatch(/# notifications[\s\S]*"total": 1[\s\S]*"Lead for the example"/);
    expect(stdout).toMatch(/# unread count\n1\n/);
    expect(stdout).toMatch(/# live unread count[\s\S]*"onSubscribe": 1,[\s\S]*"afterANewNotification": 2/);
    expect(stdout).toMatch(/# push subscription registered[\s\S]*"endpoint": "https:\/\/push\.example\.com\/send\//);
    const { subscriptions } = await t().caller(admin).notifications.listSubscriptions();
    expect(subscriptions).toHaveLength(1);
  });
});

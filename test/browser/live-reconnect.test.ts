// The live unread count (the header's badge, notifications.onUnreadCount over SSE) comes back by itself
// after the service restarts under an open page, however the stream ended: a graceful stop (SIGTERM,
// SIGINT: the server ends the stream cleanly) or a crash (SIGKILL). The restarted service is a real
// process on the same port and database; what it announces after the restart reaches the page without a
// reload, and the inbox on screen shows it (issue AD.1).
import { describe, expect, test } from "vitest";
import { chromiumFound } from "./chromium.js";
import { useProcessConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("live unread count across restarts", () => {
  const h = useProcessConsole();
  let sent = 0;

  /** A test in-app notification to the admin, sent from outside the page. */
  async function notify() {
    sent += 1;
    await h.mutate("notifications.testInApp", { type: "message.received", title: `Note ${sent}`, targetUserId: h.admin().id });
  }
  const badge = (count: number) => h.page().getByRole("link", { name: `${count} unread: open your notifications` });

  test("the badge and the inbox follow a notification sent before any restart", async () => {
    await h.signIn();
    await h.page().getByRole("link", { name: "Inbox" }).click();
    await h.page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    await badge(0).waitFor();
    await notify();
    await badge(1).waitFor();
    await h.page().getByText("Note 1", { exact: true }).first().waitFor();
  });

  for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
    test(`after ${signal} and a start on the same port, the next notification moves the badge and the inbox`, async () => {
      const before = sent;
      await badge(before).waitFor();
      await h.stop(signal);
      await h.start();
      await notify();
      await badge(before + 1).waitFor();
      await h
        .page()
        .getByText(`Note ${before + 1}`, { exact: true })
        .first()
        .waitFor();
      expect(await h.page().evaluate(() => location.pathname)).toBe("/console/inbox");
    });
  }
});

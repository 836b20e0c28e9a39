// Issue U.13 in a real Chromium, on a service without VAPID keys (the harness's app): the test sender says
// first that push is off and how to turn it on, and a push sent anyway fails with the contract's words
// ("VAPID not configured") followed by the service's own how-to, each variable named. Held to the
// console's bar at 1366 and 390 px (h.checkView).
import { describe, expect, test } from "vitest";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("a test push on a service without VAPID keys", () => {
  const h = useConsole();

  test("the test sender says push is off and how to set the keys, before anything is sent", async () => {
    const admin = await h.app().signUp({ admin: true });
    await h.signIn(admin.email);
    const page = h.page();
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Test sender" }).click();
    const notice = page.locator(".notice").filter({ hasText: "Push is off on this service" });
    await notice.waitFor();
    const text = await notice.textContent();
    for (const part of ["npx web-push generate-vapid-keys", "VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT", "Web Push keys"]) {
      expect(text).toContain(part);
    }
    // The push button is described by it, so a screen reader hears it there too.
    const describedBy = await page.getByRole("button", { name: "Send push" }).getAttribute("aria-describedby");
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe(text);
    await h.checkView("test-push-off");
  });

  test("a push sent anyway fails with the contract's words and the service's how-to", async () => {
    const page = h.page();
    await page.getByRole("button", { name: "Send to me" }).click();
    await page.getByLabel("Title").fill("Hello");
    await page.getByRole("button", { name: "Send push" }).click();
    const alert = page.getByRole("alert");
    await alert.getByText("VAPID not configured").waitFor();
    const lines = await alert.getByRole("listitem").allInnerTexts();
    expect(lines).toEqual([
      expect.stringMatching(/^VAPID_PUBLIC_KEY: .*npx web-push generate-vapid-keys/),
      expect.stringMatching(/^VAPID_PRIVATE_KEY: /),
      expect.stringMatching(/^VAPID_SUBJECT: .*mailto: or https:.*docs\/api\.md#web-push-keys/),
    ]);
    await h.checkView("test-push-refused");
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});

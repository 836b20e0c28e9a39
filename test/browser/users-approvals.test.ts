// The Users view while approvals are required (docs/api.md#who-can-do-what-while-approvals-are-required):
// admin A's grant is a request a second admin must approve (202): the dialog says so first, the result links
// the pending request, the role stays user and the row says a request waits; a new account asked as an admin
// is made a user with a request. A second request for the same user is refused in words; taking another
// admin's role back is at once. Admin B approves, and the row shows the admin. Held to the console's bar.
import { describe, expect, test } from "vitest";
import type { TestUser } from "../helpers/app.js";
import { accountAct, makeAdminInTable, roleOf } from "../helpers/four-eyes.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("the Users view, approvals required", () => {
  const h = useConsole({ approvals: "required" });
  let adminA: TestUser;
  let adminB: TestUser;
  let newcomer: TestUser;
  let late: TestUser;
  const page = () => h.page();
  const dialog = () => page().getByRole("dialog");
  const result = () => page().locator(".users-result");
  const focused = () => page().evaluate(() => (document.activeElement?.textContent ?? "").trim());
  const pendingGrants = async () =>
    (await h.app().caller(adminB).restriction.listChangeRequests({ status: "pending" })).changeRequests.filter(
      (r) => r.action === "grant-admin",
    );
  const find = async (text: string) => {
    await page().getByLabel("Contains").fill(text);
    await page().getByRole("button", { name: "Find" }).click();
  };

  test("granting admin is a request: the dialog leads with it, the role stays user, the request is linked", async () => {
    adminA = await h.app().signUp({ admin: true, name: "Admin A", email: "a@test.local" });
    adminB = await h.app().signUp({ admin: true, name: "Admin B", email: "b@test.local" });
    newcomer = await h.app().signUp({ name: "New Comer", email: "newcomer@test.local" });
    late = await h.app().signUp({ name: "Late Ask", email: "late@test.local" });
    await h.signIn(adminA.email);
    await page().goto("/console/users");
    await page().getByRole("heading", { level: 1, name: "Users" }).waitFor();
    await page().getByText("Granting the admin role needs a second admin's approval", { exact: false }).waitFor();

    await find("newcomer");
    await page().getByRole("button", { name: "Request admin: newcomer@test.local" }).click();
    await dialog().getByRole("heading", { name: "Request admin for New Comer <newcomer@test.local>?" }).waitFor();
    expect(await dialog().locator(".lead").textContent()).toMatch(
      /^Request admin for New Comer <newcomer@test\.local> — a second admin must approve/,
    );
    await h.checkView("users-request-dialog", { viewport: true });
    await dialog().getByRole("button", { name: "Request admin role" }).click();

    await result()
      .getByText(/^Admin role requested for New Comer <newcomer@test\.local>: a second admin must approve/)
      .waitFor();
    await expect.poll(focused).toMatch(/^Admin role requested/);
    expect(await roleOf(h.app(), newcomer.id)).toBe("user");
    const [request] = await pendingGrants();
    expect(request).toMatchObject({ userId: newcomer.id, requestedBy: { id: adminA.id } });
    expect(await result().getByRole("link", { name: "Open the pending request" }).getAttribute("href")).toBe(
      `/console/approvals/${request!.id}`,
    );
    // The row says a request waits, and offers no second one.
    const row = page().getByRole("row", { name: /New Comer/ });
    await row.getByText("Admin requested, waiting for a second admin").waitFor();
    expect(await row.locator(".badge").first().textContent()).toBe("User");
    expect(await row.getByRole("button", { name: /admin/i }).count()).toBe(0);
    await page().getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Approvals (1)" }).waitFor();
    await h.checkView("users-requested");
  });

  test("a new account asked as an admin is made a user, with a request", async () => {
    const form = page().getByRole("region", { name: "New user" });
    await form.getByLabel("Name").fill("Second Admin");
    await form.getByLabel("Email address").fill("second@test.local");
    await form.getByLabel("First password").fill("another-long-password");
    await form.getByLabel("Make an admin").check();
    await form.getByText("The account is made as a user, and admin is requested: a second admin must approve.").waitFor();
    await form.getByRole("button", { name: "Create and request admin" }).click();
    await result()
      .getByText("Created Second Admin <second@test.local> as a user, and requested admin: a second admin must approve.")
      .waitFor();
    await expect.poll(focused).toMatch(/^Created Second Admin/);
    await page()
      .getByRole("row", { name: /Second Admin/ })
      .getByText("Admin requested, waiting for a second admin")
      .waitFor();
    expect((await pendingGrants()).map((r) => r.userEmail).sort()).toEqual(["newcomer@test.local", "second@test.local"]);
  });

  test("a second request for a user already asked for is refused in words", async () => {
    await find("late@");
    await page().getByRole("button", { name: "Request admin: late@test.local" }).waitFor();
    // Meanwhile B asks for the same role (the page has not seen it).
    expect((await accountAct.setRole(h.app(), adminB, late.id, "admin")).statusCode).toBe(202);
    await page().getByRole("button", { name: "Request admin: late@test.local" }).click();
    await dialog().getByRole("button", { name: "Request admin role" }).click();
    const refusal = dialog().getByRole("alert");
    await refusal
      .getByText("A request for Late Ask <late@test.local>'s admin role already waits for a second admin: see Pending approvals.")
      .waitFor();
    // The service's own text under it.
    await refusal.getByText(/already has a pending grant-admin request: decide or cancel it first/).waitFor();
    await h.checkView("users-request-refused", { viewport: true });
    await dialog().getByRole("button", { name: "Cancel" }).click();
    expect(await roleOf(h.app(), late.id)).toBe("user");
  });

  test("taking another admin's role back is at once, and the dialog says so", async () => {
    await find("b@test.local");
    await page().getByRole("button", { name: "Revoke admin: b@test.local" }).click();
    await dialog().getByRole("heading", { name: "Revoke admin for Admin B <b@test.local>?" }).waitFor();
    expect(await dialog().locator(".lead").textContent()).toMatch(
      /at once: no approval is needed .* Giving the role back will need a request and a second admin's approval\./,
    );
    await dialog().getByRole("button", { name: "Revoke admin" }).click();
    await result().getByText("Admin B <b@test.local> is no longer an admin.").waitFor();
    expect(await roleOf(h.app(), adminB.id)).toBe("user");
    // B is an admin again, as the deployment made them, to approve below.
    await makeAdminInTable(h.app(), adminB.id);
  });

  test("once a second admin approves, the row shows the admin", async () => {
    const [request] = (await pendingGrants()).filter((r) => r.userId === newcomer.id);
    await h.app().caller(adminB).restriction.approveChangeRequest({ id: request!.id, comment: "new on-call admin" });
    expect(await roleOf(h.app(), newcomer.id)).toBe("admin");
    await find("newcomer");
    const row = page().getByRole("row", { name: /New Comer/ });
    await row.getByRole("button", { name: "Revoke admin: newcomer@test.local" }).waitFor();
    expect(await row.locator(".badge").first().textContent()).toBe("Admin");
    expect(await row.getByText("Admin requested").count()).toBe(0);
  });

  test("each act is in the audit trail: the requests, the account made, the revocation, the approved grant", async () => {
    const events = (await h.app().caller(adminB).audit.list({ limit: 50 })).events.map((e) => `${e.action} ${e.actor.email}`);
    expect(events.filter((e) => e.startsWith("change_request.create")).sort()).toEqual([
      "change_request.create a@test.local",
      "change_request.create a@test.local",
      "change_request.create b@test.local",
    ]);
    expect(events).toContain("user.create a@test.local");
    // Newest first: the grant B's approval applied, then A's revocation of B.
    expect(events.filter((e) => e.startsWith("user.set_role"))).toEqual(["user.set_role b@test.local", "user.set_role a@test.local"]);
  });

  test("the pages ran without errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});

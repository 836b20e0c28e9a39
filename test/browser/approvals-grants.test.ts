// Four-eyes beyond cohorts in a real Chromium (APPROVALS=required): admin A asks for one pro's activation
// (POST /:proId/change-requests) and for the admin role of an account (set-role, which the service turns
// into a grant-admin request); admin B finds both in the Approvals view in words, opens each, and approves:
// the pro is switched on, the account is an admin. Every state is held to the console's bar (h.checkView).
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { accountAct, roleOf } from "../helpers/four-eyes.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("four-eyes approval of a pro and of the admin role", () => {
  const h = useConsole({ approvals: "required" });
  let adminA: TestUser;
  let adminB: TestUser;
  let newcomer: TestUser;
  const page = () => h.page();

  test("B sees a pro's activation and an admin grant in words", async () => {
    adminA = await h.app().signUp({ admin: true });
    adminB = await h.app().signUp({ admin: true });
    newcomer = await h.app().signUp({ email: "newcomer@test.local" });
    await h.app().db.db.insert(pros).values({ id: "pro-g1", name: "Pro g1" });
    await h.app().caller(adminA).restriction.createProChangeRequest({ proId: "pro-g1", action: "activate", reason: "opted in by phone" });
    expect((await accountAct.setRole(h.app(), adminA, newcomer.id, "admin")).statusCode).toBe(202);

    await h.signIn(adminB.email);
    await page().goto("/console/approvals");
    await page().getByRole("heading", { level: 1, name: "Pending approvals" }).waitFor();
    const proRow = page().getByRole("row", { name: /Pro pro-g1/ });
    expect(await proRow.getByRole("cell").nth(1).textContent()).toBe("Activation");
    const grantRow = page().getByRole("row", { name: /User newcomer@test\.local/ });
    expect(await grantRow.getByRole("cell").nth(1).textContent()).toBe("Admin role");
    await h.checkView("approvals-list-pro-and-grant");
  });

  test("B approves the pro's activation: it is switched on", async () => {
    await page()
      .getByRole("link", { name: /^Review the activation of pro pro-g1/ })
      .click();
    await page()
      .getByRole("heading", { level: 1, name: /Activation of pro pro-g1/ })
      .waitFor();
    await page().getByText("No change since the request: approving applies exactly this.").waitFor();
    await h.checkView("approvals-pro-request");
    await page().getByRole("button", { name: "Approve and switch on" }).click();
    await page().getByRole("status").filter({ hasText: "pro pro-g1 is switched on" }).waitFor();
    expect(await h.app().caller(adminB).restriction.getPro({ proId: "pro-g1" })).toMatchObject({ restrictionActive: true });
  });

  test("B approves the admin grant: the account is an admin", async () => {
    await page().goto("/console/approvals");
    await page()
      .getByRole("link", { name: /^Review the admin role for newcomer@test\.local/ })
      .click();
    await page()
      .getByRole("heading", { level: 1, name: /Admin role for newcomer@test\.local/ })
      .waitFor();
    await h.checkView("approvals-grant-request");
    await page().getByRole("button", { name: "Approve and grant the admin role" }).click();
    await page().getByRole("status").filter({ hasText: "newcomer@test.local is an admin" }).waitFor();
    expect(await roleOf(h.app(), newcomer.id)).toBe("admin");
  });
});

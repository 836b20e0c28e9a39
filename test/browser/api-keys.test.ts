// The API keys page in a real Chromium: an admin creates a key with flags:read, its secret is shown once
// (focused, copyable) and works over OFREP; after "Done" and after a reload the page no longer holds it;
// revoking through the dialog refuses the secret at once. Every state is held to the console's bar at 1366 and
// 390 px (h.checkView: fits the screen, no axe-core violation).
import { describe, expect, test } from "vitest";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const NAME = "pricing-service";
const WARNING = "Copy this secret now: it will not be shown again";

describe.skipIf(!chromiumFound())("API keys page", () => {
  const h = useConsole();
  let admin: TestUser;
  let secret = "";

  /** An OFREP evaluation with this secret, as another service would send it. */
  const evaluate = (key: string) =>
    h.app().app.inject({
      method: "POST",
      url: "/ofrep/v1/evaluate/flags/restrict-direct-contact",
      headers: { "x-api-key": key, "content-type": "application/json" },
      payload: { context: { targetingKey: "pro-1" } },
    });
  const dialog = () => h.page().getByRole("dialog");
  const secretBox = () => h.page().getByRole("region", { name: WARNING });
  const row = (name: string) => h.page().getByRole("row", { name: new RegExp(name) });
  /** Whether the page holds the text anywhere: its markup (text included), a field's value, or web storage. */
  const pageHolds = (text: string) =>
    h
      .page()
      .evaluate(
        (t) =>
          document.documentElement.outerHTML.includes(t) ||
          Array.from(document.querySelectorAll("input")).some((input) => input.value.includes(t)) ||
          JSON.stringify({ ...localStorage, ...sessionStorage }).includes(t),
        text,
      );
  const isFocused = (locator: ReturnType<typeof dialog>) => locator.evaluate((el) => el === document.activeElement);

  test("an admin opens the page from the navigation", async () => {
    admin = await h.app().signUp({ admin: true });
    await h.signIn(admin.email);
    const page = h.page();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await page.getByText("No API keys yet.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/api-keys");
    expect(await page.getByRole("link", { name: "API keys" }).getAttribute("aria-current")).toBe("page");
    await h.checkView("api-keys-empty");
  });

  test("an empty name's message shows only after a submit, and nothing is created", async () => {
    const page = h.page();
    const name = page.getByLabel("Name", { exact: true });
    const message = page.getByText("Enter a name");
    expect(await message.count()).toBe(0);
    expect(await page.getByText("Choose at least one scope.").count()).toBe(0);
    expect(await name.getAttribute("aria-invalid")).toBe("false");

    await page.getByRole("button", { name: "Create key" }).click();
    await message.waitFor();
    await page.getByText("Choose at least one scope.").waitFor();
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    // The field is described by its message, and takes the focus so that it is read out.
    const describedBy = (await name.getAttribute("aria-describedby")) ?? "";
    expect(await message.getAttribute("id")).toBeTruthy();
    expect(describedBy.split(" ")).toContain(await message.getAttribute("id"));
    expect(await isFocused(name)).toBe(true);
    expect((await h.app().caller(admin).apiKeys.list()).apiKeys).toEqual([]);
    await h.checkView("api-keys-validation");

    // Typing a name clears its message; a bad number of days shows one as it is typed.
    await name.fill(NAME);
    await message.waitFor({ state: "detached" });
    await page.getByLabel(/^Expires in days/).fill("0");
    await page.getByText("A whole number of days from 1 to 3650").waitFor();
  });

  test("creates a key with flags:read: the secret is shown once, focused, and copies", async () => {
    const page = h.page();
    await page.getByLabel(/^Expires in days/).fill("30");
    await page.getByRole("checkbox", { name: /flags:read/ }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await secretBox().waitFor();
    secret = (await secretBox().locator("code.secret").textContent()) ?? "";
    expect(secret).toMatch(/^rk_\S{16,}$/);
    expect(await isFocused(secretBox())).toBe(true);

    const created = row(NAME);
    await created.waitFor();
    const cells = await created.getByRole("cell").allTextContents();
    // The name with the secret's prefix under it, the scopes, created by whom, expires, last used, status.
    expect(cells.slice(0, 2)).toEqual([`${NAME}prefix ${secret.slice(0, 11)}…`, "flags:read"]);
    expect(cells[2]).toContain(`by ${admin.email}`);
    expect(cells[3]).not.toBe("Never");
    expect(cells[4]).toBe("Never");
    expect(cells[5]).toBe("ActiveRevoke…");

    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.origin() });
    await secretBox().getByRole("button", { name: "Copy" }).click();
    await secretBox().getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await h.checkView("api-keys-secret");
  });

  test("the secret reads the flag over OFREP", async () => {
    const res = await evaluate(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ key: "restrict-direct-contact", value: false });
  });

  test("after Done, and after a reload, the page no longer holds the secret", async () => {
    const page = h.page();
    await secretBox().getByRole("button", { name: "Done" }).click();
    await secretBox().waitFor({ state: "detached" });
    expect(await isFocused(page.getByLabel("Name", { exact: true }))).toBe(true);
    expect(await pageHolds(secret)).toBe(false);
    // The list shows the key by its prefix only.
    expect(await pageHolds(secret.slice(0, 11))).toBe(true);

    await page.reload();
    await row(NAME).waitFor();
    expect(await pageHolds(secret)).toBe(false);
  });

  test("revoking through the dialog refuses the secret at once", async () => {
    const page = h.page();
    await page.getByRole("button", { name: `Revoke ${NAME}` }).click();
    await dialog()
      .getByRole("heading", { name: `Revoke ${NAME}?` })
      .waitFor();
    await dialog().getByText("Services using it stop at once.").waitFor();
    await h.checkView("api-keys-revoke-dialog", { viewport: true });

    await dialog().getByRole("button", { name: "Revoke", exact: true }).click();
    await dialog().waitFor({ state: "hidden" });
    await page
      .getByRole("status")
      .filter({ hasText: `${NAME} revoked` })
      .waitFor();
    await row(NAME).getByText("Revoked").waitFor();
    expect(await row(NAME).getByRole("button").count()).toBe(0);
    expect((await evaluate(secret)).statusCode).toBe(401);
    expect((await h.app().caller(admin).apiKeys.list()).apiKeys[0]?.revokedAt).toBeInstanceOf(Date);
  });

  test("a key made without an expiry never expires; the list shows it beside the revoked one", async () => {
    const page = h.page();
    await page.getByLabel("Name", { exact: true }).fill("messaging-service");
    await page.getByRole("checkbox", { name: /notifications:write/ }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await secretBox().getByRole("button", { name: "Done" }).click();
    const second = row("messaging-service");
    await second.getByText("Active").waitFor();
    expect((await second.getByRole("cell").allTextContents())[3]).toBe("Never");
    await row(NAME).getByText("Revoked").waitFor();
    await h.checkView("api-keys-list");
  });

  test("no page errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});

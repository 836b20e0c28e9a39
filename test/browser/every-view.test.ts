// Every view of the console, held to its bar at 1366 and 390 px (h.checkView: nothing wider than the
// screen, zero axe-core violations, a screenshot of each width): first as a new service shows them (empty),
// then full, with long unbroken ids and long texts. Each view's own suite checks its other states; this one
// makes sure none is left out: the views visited are every route of console/src/App.tsx.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { pros, pushDeliveries, pushSubscriptions, users } from "../../db/schema/index.js";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { insertChangeRequest, OTHER_ADMIN } from "../helpers/change-requests.js";
import { accountAct } from "../helpers/four-eyes.js";
import { eventFor, producer } from "../helpers/producers.js";
import { chromiumFound } from "./chromium.js";
import { type ConsoleHarness, useConsole } from "./harness.js";

/** The routes the console declares, as written in App.tsx (`/cohorts/:id`, `/pros/:proId?`, …). */
const declaredRoutes = () => [
  ...new Set(
    [...readFileSync(new URL("../../console/src/App.tsx", import.meta.url), "utf8").matchAll(/<Route path="([^"]+)"/g)].map((m) => m[1]!),
  ),
];

const LONG_ID = `pro-${"x".repeat(120)}`;

/**
 * Deliveries as a running service has them. The test app has no VAPID keys, so an event sent through the
 * producer API queues no push, and the Deliveries table's last column held only a short line of text: it
 * fitted at 1366 px, and no state of the sweep made its box scroll. Here a producer's long name, a long
 * event id, and a delivery of every status (long errors among them) to the user's four subscriptions.
 */
async function seedDeliveries(h: ConsoleHarness, user: TestUser) {
  const { db } = h.app().db;
  const send = producer(() => h.app());
  const name = "notifications-of-the-messaging-service";
  const eventId = `order-${"7".repeat(100)}`;
  const [created] = await send.results(await send.key(name), [eventFor(user.id, { eventId, title: "A very long title ".repeat(5) })]);
  expect(created!.status).toBe("created");
  // And one that queued none: the user turned push off for billing.
  await h
    .app()
    .caller(user)
    .notifications.updatePreferences({ billing: { push: false } });
  await send.results(await send.key("billing"), [eventFor(user.id, { type: "invoice.paid" })]);
  const subscriptions = await db
    .insert(pushSubscriptions)
    .values(
      [1, 2, 3, 4].map((n) => ({
        userId: user.id,
        endpoint: `https://push.example/${n}${"s".repeat(60)}`,
        p256dh: `k${n}`,
        auth: `a${n}`,
      })),
    )
    .returning();
  const delivery = (n: number, fields: Partial<typeof pushDeliveries.$inferInsert>) => ({
    producer: name,
    eventId,
    subscriptionId: subscriptions[n]!.id,
    payload: {},
    urgency: "normal",
    ...fields,
  });
  await db
    .insert(pushDeliveries)
    .values([
      delivery(0, { status: "sent", attempts: 1, lastStatusCode: 201, sentAt: new Date() }),
      delivery(1, { status: "queued", attempts: 2, lastStatusCode: 429, lastError: "Push service answered HTTP 429" }),
      delivery(2, { status: "failed", attempts: 5, lastError: `network: ${"connection reset by peer ".repeat(8)}` }),
      delivery(3, { status: "gone", attempts: 1, lastStatusCode: 410, lastError: "Push service answered HTTP 410" }),
    ]);
}

// Each test visits many views, each checked with axe at two widths: minutes on a loaded machine, so the
// whole sweep's time bound is wider than one browser step's.
describe.skipIf(!chromiumFound())("every view of the console", { timeout: 240_000 }, () => {
  const h = useConsole();
  let admin: TestUser;
  const visited = new Set<string>();
  const ids = { cohort: "", request: "" };

  /** Opens a view by its address and waits for its main heading; checks it; notes the route as visited. */
  async function visit(route: string, path: string, heading: RegExp, name: string) {
    const page = h.page();
    await page.goto(`/console${path}`);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    // Nothing still loading: the views say "Loading…" with aria-busy until their data is in.
    await page.locator("[aria-busy=true]:visible").first().waitFor({ state: "detached" });
    await h.checkView(name);
    visited.add(route);
  }

  test("the sign-in page", async () => {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    await h.page().goto("/console");
    await h.page().getByRole("heading", { name: "Sign in" }).waitFor();
    await h.checkView("every-00-sign-in");
  });

  test("every view, empty", async () => {
    await h.signIn(admin.email);
    await visit("/cohorts", "/cohorts", /^Cohorts$/, "every-01-cohorts-empty");
    await visit("/pros/:proId?", "/pros", /^Pro lookup$/, "every-02-pro-lookup-empty");
    await visit("/audit", "/audit", /^Audit log$/, "every-03-audit-empty");
    await visit("/test-sender", "/test-sender", /^Test sender$/, "every-04-test-sender");
    await visit("/api-keys", "/api-keys", /^API keys$/, "every-05-api-keys-empty");
    await visit("/deliveries", "/deliveries", /^Deliveries$/, "every-06-deliveries-empty");
    await visit("/approvals", "/approvals", /approvals/i, "every-07-approvals-empty");
    await visit("/inbox", "/inbox", /notifications/i, "every-08-inbox-empty");
    await visit("/users", "/users", /^Users$/, "every-09-users-only-you");
    await visit("/preferences", "/preferences", /^Notification preferences$/, "every-10-preferences");
    await visit("/account", "/account", /^Your account$/, "every-10-account");
  });

  // A test of its own: the full sweep below takes most of a test's time on a busy machine.
  test("the Users view, full", async () => {
    // Users: more than a page (the pager), a long name and address, banned with a long reason and an end.
    const long = await h.app().signUp({
      name: `Someone with a rather long name ${"n".repeat(40)}`,
      email: `a-very-long-address-${"x".repeat(40)}@a-long-domain.example.test`,
    });
    const banned = await accountAct.ban(h.app(), admin, long.id, { reason: "A long reason for a ban: ".repeat(8), expiresInDays: 1 });
    expect(banned.statusCode, banned.body).toBe(200);
    // Straight into the table, without a password: nothing to hash, quick.
    const more = Array.from({ length: 20 }, (_, i) => ({
      id: `listed-${i}`,
      name: `User ${i}`,
      email: `user-${String(i).padStart(2, "0")}@test.local`,
    }));
    await h.app().db.db.insert(users).values(more);
    await visit("/users", "/users", /^Users$/, "every-09-users-full");
  });

  test("every view, full: long ids, long texts, many rows", async () => {
    const api = h.app().caller(admin).restriction;
    const proIds = [LONG_ID, ...Array.from({ length: 40 }, (_, i) => `pro-${String(i).padStart(4, "0")}`)];
    await h
      .app()
      .db.db.insert(pros)
      .values(proIds.slice(0, 30).map((id) => ({ id, name: id })));
    const cohort = await api.createCohort({ cohortNumber: 1, proIds });
    await api.checkGates({ id: cohort.id, responseRate: 0.5, comparisonsDone: 3, legalSignoff: false });
    await api.checkGates({ id: cohort.id, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
    await api.activateCohort({ id: cohort.id });
    const other = await api.createCohort({ cohortNumber: 2, proIds: proIds.slice(0, 10) });
    await api.checkGates({ id: other.id, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
    await api.activateCohort({ id: other.id });
    await api.rollbackCohort({ id: other.id, reason: "A long reason: ".repeat(12) });
    ids.cohort = cohort.id;
    ids.request = await insertChangeRequest(h.app().db.db, { cohortId: cohort.id, action: "rollback", requestedBy: OTHER_ADMIN });
    await h
      .app()
      .caller(admin)
      .apiKeys.create({ name: "Search service, read-only flags for the pro directory", scopes: ["flags:read"] });
    await seedDeliveries(h, admin);
    for (let i = 0; i < 3; i++) {
      await h
        .app()
        .caller(admin)
        .notifications.testInApp({ type: "system.test", title: `Notice ${i}`, body: "Body ".repeat(30), targetUserId: admin.id });
    }

    await visit("/cohorts", "/cohorts", /^Cohorts$/, "every-11-cohorts");
    await visit("/cohorts/:id", `/cohorts/${ids.cohort}`, /^Cohort 1\b/, "every-12-cohort");
    await visit("/pros/:proId?", "/pros", /^Pro lookup$/, "every-13-pro-lookup");
    await visit("/pros/:proId?", `/pros/${LONG_ID}`, /^Pro lookup$/, "every-14-pro-long-id");
    await visit("/audit", "/audit", /^Audit log$/, "every-15-audit");
    await visit("/api-keys", "/api-keys", /^API keys$/, "every-16-api-keys");
    await visit("/deliveries", "/deliveries", /^Deliveries$/, "every-17-deliveries");
    await visit("/approvals", "/approvals", /approvals/i, "every-18-approvals");
    await visit("/approvals/:id", `/approvals/${ids.request}`, /rollback/i, "every-19-approval-request");
    await visit("/inbox", "/inbox", /notifications/i, "every-20-inbox");
    // Billing's push turned off (seedDeliveries): a preference that is not the default.
    await visit("/preferences", "/preferences", /^Notification preferences$/, "every-20-preferences-changed");
  });

  test("the page of an account that is not a platform admin", async () => {
    const user = await h.app().signUp();
    const page = h.page();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // The last view visited is theirs too; the console's front door (/) is their inbox; any admin view says
    // why it is closed to them.
    await page.getByRole("heading", { level: 1, name: "Notification preferences" }).waitFor();
    await page.goto("/console");
    await page.getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/inbox");
    visited.add("/");
    await page.goto("/console/cohorts");
    await page.getByRole("heading", { level: 1, name: "No access to the operator console" }).waitFor();
    await h.checkView("every-21-not-an-admin");
  });

  test("visited every route the console declares", () => {
    expect([...visited].sort()).toEqual(declaredRoutes().sort());
  });

  test("the pages ran without errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});

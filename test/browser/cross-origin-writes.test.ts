// Writes with the session cookie from another origin of the same site, in a real Chromium (issue K.2,
// docs/api.md#browsers). The console runs on http://localhost:<port>, trusted as that exact origin; the
// attacker's page on http://localhost:<other port> is the same site, so SameSite=Lax lets the browser send
// the admin's cookie with its POSTs, but it is not a trusted origin. Red on the code before issue K
// (checked): SameSite=Lax was the only defence, so the text/plain form POST activated the cohort (200), the
// no-cors POST rolled it back (200), and the multipart form reached tRPC (400 there, not 403). Red before
// issue T.3 (checked): with Authorization: Basic beside the cookie the origin check was skipped, and a form
// without fields (no body, so no JSON rule either) activated the cohort (200).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, test } from "vitest";
import { type TestUser, uniqueCohortNumber } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const REFUSAL = "A write with the session cookie must come from a trusted origin";
const html = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

describe.skipIf(!chromiumFound())("writes with the session cookie from another origin of the same site", () => {
  const h = useConsole({ host: "localhost" });
  let admin: TestUser;
  let cohort: { id: string; cohortNumber: number };
  let attackerServer: Server | undefined;
  let attacker: Page;
  let attackerOrigin: string;

  afterAll(async () => {
    await new Promise((resolve) => (attackerServer ? attackerServer.close(resolve) : resolve(undefined)));
  });

  /** The service's REST API with the admin's bearer token: no cookie, so no origin rule. */
  async function api<T>(method: "GET" | "POST", url: string, payload?: object): Promise<T> {
    const res = await h.app().app.inject({ method, url, headers: admin.headers, ...(payload && { payload }) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return (res.json() as { data: T }).data;
  }
  const cohortPath = () => `/api/admin/restriction/cohorts/${cohort.id}`;
  const status = async () =>
    (await api<{ id: string; status: string }[]>("GET", "/api/admin/restriction/cohorts")).find((c) => c.id === cohort.id)?.status;
  const auditActions = async () =>
    (await api<{ events: { action: string }[] }>("GET", `/api/admin/audit?targetId=${cohort.id}`)).events.map((e) => e.action);

  /** Every request the service answered, as it arrived (a listener beside Fastify's on its HTTP server). */
  const seen: {
    method: string;
    path: string;
    status: number;
    origin?: string;
    cookie?: string;
    fetchSite?: string;
    authorization?: string;
  }[] = [];
  const answered = (method: string, path: string) => seen.filter((r) => r.method === method && r.path === path);

  /**
   * Runs an attack in the attacker's page and answers what the service saw of its POST to `path`, and
   * what the page saw: the script's result, or the text of the tab a form opened (then closed).
   */
  async function attack(path: string, run: string, opensTab = false) {
    const before = answered("POST", path).length;
    const popup = opensTab ? attacker.context().waitForEvent("page") : undefined;
    const outcome = await attacker.evaluate(run);
    await expect.poll(() => answered("POST", path).length, { timeout: 10_000 }).toBe(before + 1);
    const request = answered("POST", path).at(-1)!;
    // A real attack: the browser sent the admin's cookie, from the attacker's origin of the same site.
    expect(request.cookie).toMatch(/better-auth\.session_token=/);
    expect(request.origin).toBe(attackerOrigin);
    expect(request.fetchSite).toBe("same-site");
    const tab = await popup;
    const shown = tab ? await tab.locator("body").textContent() : undefined;
    await tab?.close();
    return { status: request.status, outcome, shown, authorization: request.authorization };
  }

  test("an admin signs in to the console; a cohort whose gates pass is pending", async () => {
    h.app().app.server.on("request", (req: IncomingMessage, res: ServerResponse) =>
      res.once("finish", () =>
        seen.push({
          method: req.method!,
          path: req.url!,
          status: res.statusCode,
          origin: req.headers.origin,
          cookie: req.headers.cookie,
          fetchSite: req.headers["sec-fetch-site"] as string | undefined,
          authorization: req.headers.authorization,
        }),
      ),
    );
    admin = await h.app().signUp({ admin: true });
    cohort = await api("POST", "/api/admin/restriction/cohorts", { cohortNumber: uniqueCohortNumber(), proIds: ["pro-x1", "pro-x2"] });
    await api("POST", `${cohortPath()}/check-gates`, { responseRate: 0.6, comparisonsDone: 50, legalSignoff: true });

    const page = h.page();
    await h.signIn(admin.email);
    expect(new URL(page.url()).hostname).toBe("localhost");
    expect(await status()).toBe("pending");
  });

  test("the attacker's page opens in the same browser, on another port of localhost", async () => {
    const forms = `
      <form id="plain" method="POST" enctype="text/plain" target="_blank" action="${html(h.origin() + cohortPath())}/activate">
        <input name='{"id":"${html(cohort.id)}","x":"' value='"}'>
      </form>
      <form id="empty" method="POST" enctype="text/plain" target="_blank" action="${html(h.origin() + cohortPath())}/activate"></form>
      <form id="multipart" method="POST" enctype="multipart/form-data" target="_blank" action="${html(h.origin())}/trpc/restriction.activateCohort">
        <input name="id" value="${html(cohort.id)}">
      </form>`;
    attackerServer = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html>${forms}`));
    await new Promise<void>((resolve) => attackerServer!.listen(0, "localhost", resolve));
    attackerOrigin = `http://localhost:${(attackerServer.address() as AddressInfo).port}`;
    expect(attackerOrigin).not.toBe(h.origin());
    attacker = await h.page().context().newPage();
    await attacker.goto(`${attackerOrigin}/`);
  });

  test("a text/plain form POST to activate is refused", async () => {
    const { status, shown } = await attack(`${cohortPath()}/activate`, `document.getElementById("plain").submit()`, true);
    expect(status).toBe(403);
    expect(shown).toContain(REFUSAL);
  });

  test("a no-cors fetch POST to roll back is refused", async () => {
    const run = `fetch(${JSON.stringify(h.origin() + cohortPath())} + "/rollback", { method: "POST", mode: "no-cors", credentials: "include" }).then((r) => r.type, (e) => String(e))`;
    const { status, outcome } = await attack(`${cohortPath()}/rollback`, run);
    expect(status).toBe(403);
    // The page never reads the answer anyway: Cross-Origin-Resource-Policy (helmet) blocks it.
    expect(outcome).toBe("TypeError: Failed to fetch");
  });

  test("a multipart form POST to a tRPC mutation is refused", async () => {
    const { status, shown } = await attack("/trpc/restriction.activateCohort", `document.getElementById("multipart").submit()`, true);
    expect(status).toBe(403);
    expect(shown).toContain(REFUSAL);
  });

  test("a credentialed JSON fetch is stopped by the CORS preflight, and would be refused after it", async () => {
    const outcome = await attacker.evaluate(
      async ([url, id]) => {
        try {
          const res = await fetch(url!, {
            method: "POST",
            credentials: "include",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ id }),
          });
          return `answered ${res.status}`;
        } catch (err) {
          return String(err);
        }
      },
      [`${h.origin()}${cohortPath()}/activate`, cohort.id],
    );
    expect(outcome).toBe("TypeError: Failed to fetch");
    // Only the preflight reached the service; the POST was never sent.
    expect(answered("OPTIONS", `${cohortPath()}/activate`)).toHaveLength(1);
    expect(answered("POST", `${cohortPath()}/activate`)).toHaveLength(1); // the text/plain form's
  });

  test("with Authorization: Basic, which a browser adds by itself behind an HTTP-auth proxy, the form POST is refused all the same", async () => {
    // As a browser does once its user has signed in to a proxy's realm: every request to that host carries it.
    await attacker.context().setExtraHTTPHeaders({ authorization: `Basic ${Buffer.from("staff:proxy-password").toString("base64")}` });
    try {
      // A form without fields sends no body: only the origin check stands between it and the activation.
      const { status, shown, authorization } = await attack(`${cohortPath()}/activate`, `document.getElementById("empty").submit()`, true);
      expect(authorization).toMatch(/^Basic /);
      expect(status).toBe(403);
      expect(shown).toContain(REFUSAL);
    } finally {
      await attacker.context().setExtraHTTPHeaders({});
    }
  });

  test("nothing changed: the cohort is pending and its audit trail has only the create and the check", async () => {
    expect(await status()).toBe("pending");
    expect(await auditActions()).toEqual(["cohort.check_gates", "cohort.create"]);
    const pro = await api<{ restrictionActive: boolean }>("GET", "/api/admin/restriction/pro-x1");
    expect(pro.restrictionActive).toBe(false);
    await attacker.close();
  });

  test("the console itself, same origin with the cookie, still activates through its UI", async () => {
    const page = h.page();
    await page.goto(`/console/cohorts/${cohort.id}`);
    await page.getByRole("button", { name: "Preview activation…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Activate" }).click();
    await page.getByText(`Cohort ${cohort.cohortNumber} activated.`).waitFor();
    expect(await status()).toBe("active");
    expect(await auditActions()).toEqual(["cohort.activate", "cohort.check_gates", "cohort.create"]);
    // The console's tRPC mutation: the session cookie, from its own origin.
    const mutation = seen.filter((r) => r.method === "POST" && r.path.startsWith("/trpc/restriction.activateCohort?"));
    expect(mutation).toMatchObject([
      { status: 200, origin: h.origin(), fetchSite: "same-origin", cookie: expect.stringMatching(/session_token/) },
    ]);
  });

  test("and a same-origin fetch from the console's page may roll back with the cookie", async () => {
    const answer = await h.page().evaluate(async (path) => {
      const res = await fetch(path, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reason: "same-origin check" }),
      });
      return { status: res.status, body: await res.json() };
    }, `${cohortPath()}/rollback`);
    expect(answer).toMatchObject({ status: 200, body: { success: true, data: { status: "rolled_back" } } });
    expect(await auditActions()).toEqual(["cohort.rollback", "cohort.activate", "cohort.check_gates", "cohort.create"]);
  });

  test("the console's page ran without errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});

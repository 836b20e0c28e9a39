// Bad input at the bounds: each limit of the contract accepted and one past it refused naming the field,
// page and limit normalised rather than refused, and deterministic cases of what the generated requests of
// bad-input.restriction and bad-input.notifications found, each stating the contract's answer.
import { randomUUID } from "node:crypto";
import { inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { type TestUser, uniqueCohortNumber } from "../helpers/app.js";
import { useBadInput } from "../helpers/bad-input.js";
import { INT32_MAX, j, times } from "../helpers/bad-input-arbitraries.js";
import { N, R } from "../helpers/bad-input-models.js";
import { PUSH_KEYS } from "../helpers/fixtures.js";
import type { Envelope, WireOutput } from "../helpers/rest.js";
import { snapshotTables } from "../helpers/snapshot.js";

type NotificationPage = WireOutput<"notifications.list">;
type Cohort = WireOutput<"restriction.createCohort">;

const input = useBadInput();

describe("limits and page bounds on the REST routes", () => {
  it("accepts each bound and refuses one past it, with details naming the field", async () => {
    const id = input.pools.cohortIds[1]!;
    const ids = (n: number) => Array.from({ length: n }, () => randomUUID());
    const proIds = (n: number) => Array.from({ length: n }, (_, i) => `limit-${n}-${i}`);
    const inApp = { type: "system.limit", title: "Limit", targetUserId: "" };
    type Case = { key: string; path?: string; body?: Record<string, unknown>; query?: string; field?: string; status?: number };
    const cases: Case[] = [
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 1, proIds: ["a"] }, status: 201 },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: INT32_MAX, proIds: ["a"] }, status: 201 },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 0, proIds: ["a"] }, field: "cohortNumber" },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: -1, proIds: ["a"] }, field: "cohortNumber" },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 2 ** 31, proIds: ["a"] }, field: "cohortNumber" },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 2, proIds: [] }, field: "proIds" },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 2, proIds: proIds(500) }, status: 201 },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 3, proIds: proIds(501) }, field: "proIds" },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 3, proIds: [times("p", 200)] }, status: 201 },
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 4, proIds: [times("p", 201)] }, field: "proIds" },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { responseRate: 0, comparisonsDone: 0 }, status: 201 },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { responseRate: 1, comparisonsDone: INT32_MAX }, status: 201 },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { responseRate: -0.0001 }, field: "responseRate" },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { responseRate: 1.0001 }, field: "responseRate" },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { comparisonsDone: -1 }, field: "comparisonsDone" },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { comparisonsDone: 2.5 }, field: "comparisonsDone" },
      { key: `POST ${R}/cohorts/:id/check-gates`, body: { comparisonsDone: 2 ** 31 }, field: "comparisonsDone" },
      { key: `POST ${R}/cohorts/:id/rollback`, body: { reason: times("r", 500) }, status: 200 },
      { key: `POST ${R}/cohorts/:id/rollback`, body: { reason: times("\ud83d\ude00", 500) }, status: 200 },
      { key: `POST ${R}/cohorts/:id/rollback`, body: { reason: times("r", 501) }, field: "reason" },
      { key: `GET ${N}`, query: `search=${times("s", 200)}`, status: 200 },
      { key: `GET ${N}`, query: `search=${times("s", 201)}`, field: "search" },
      { key: `DELETE ${N}/bulk`, body: { ids: ids(1000) }, status: 200 },
      { key: `DELETE ${N}/bulk`, body: { ids: ids(1001) }, field: "ids" },
      { key: `DELETE ${N}/bulk`, body: { ids: [times("i", 100)] }, status: 200 },
      { key: `DELETE ${N}/bulk`, body: { ids: [times("i", 101)] }, field: "ids" },
      {
        key: `POST ${N}/test/in-app`,
        body: { ...inApp, type: times("t", 100), body: times("b", 2000), url: `/${times("u", 2047)}` },
        status: 200,
      },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, type: times("t", 101) }, field: "type" },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, title: times("t", 200) }, status: 200 },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, title: times("t", 201) }, field: "title" },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, body: times("b", 2001) }, field: "body" },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, url: `/${times("u", 2048)}` }, field: "url" },
      { key: `DELETE ${N}/subscriptions`, body: { endpoint: times("e", 2048) }, status: 200 },
      { key: `DELETE ${N}/subscriptions`, body: { endpoint: times("e", 2049) }, field: "endpoint" },
      // PostgreSQL text cannot hold NUL: refused as a field, never stored or answered with a 500.
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 5, proIds: ["a\u0000b"] }, field: "proIds" },
      { key: `POST ${R}/cohorts/:id/rollback`, body: { reason: "a\u0000b" }, field: "reason" },
      { key: `GET ${R}/:proId`, path: "a%00b", field: "proId" },
      { key: `POST ${R}/:proId/activate`, path: "%00", field: "proId" },
    ];
    for (const c of cases) {
      const b = input.built(c.key);
      const url = b.route.path.replace(":id", id).replace(":proId", c.path ?? "") + (c.query ? `?${c.query}` : "");
      const body = c.body && "targetUserId" in c.body ? { ...c.body, targetUserId: input.user().id } : c.body;
      const answer = await input.send(b, url, body && { text: j(body), contentType: "application/json" });
      if (c.field) {
        expect({ status: answer.status, code: answer.error?.code }, answer.where).toEqual({ status: 400, code: "VALIDATION_ERROR" });
        expect(
          answer.error!.details!.map((d) => d.field.split(".")[0]),
          answer.where,
        ).toContain(c.field);
      } else {
        expect(answer.status, answer.where).toBe(c.status);
      }
    }
  });

  it("normalises odd page and limit values (page >= 1, limit 1..100, default 30) and never refuses them", async () => {
    const db = input.app().db.db;
    const extra = await db
      .insert(notifications)
      .values(
        Array.from({ length: 101 }, (_, i) => ({
          userId: input.admin().id,
          eventType: "limit.test",
          category: "system",
          title: `Row ${i}`,
        })),
      )
      .returning({ id: notifications.id });
    try {
      const list = input.built(`GET ${N}`);
      const { total } = (await input.send(list, `${N}?limit=100`)).data as NotificationPage;
      expect(total).toBeGreaterThan(100);
      const cases: [query: string, page: number, limit: number][] = [
        ["", 1, 30],
        ["limit=0", 1, 30],
        ["limit=", 1, 30],
        ["limit=abc", 1, 30],
        ["limit=1e309", 1, 30],
        ["limit=-5", 1, 1],
        ["limit=1", 1, 1],
        ["limit=2.5", 1, 2],
        ["limit=100", 1, 100],
        ["limit=101", 1, 100],
        ["limit=1&limit=50", 1, 1],
        ["page=0", 1, 30],
        ["page=-1", 1, 30],
        ["page=abc", 1, 30],
        ["page=1e309", 1, 30],
        ["page=2.5&limit=100", 2, 100],
        ["page=2&page=9&limit=100", 2, 100],
        ["page=9007199254740993", Math.floor(Number.MAX_SAFE_INTEGER / 100), 30],
      ];
      for (const [query, page, limit] of cases) {
        const answer = await input.send(list, `${N}?${query}`);
        const data = answer.data as NotificationPage;
        const length = Math.max(0, Math.min(limit, total - (page - 1) * limit));
        expect({ page: data.page, length: data.notifications.length, has_more: data.has_more }, answer.where).toEqual({
          page,
          length,
          has_more: page * limit < total,
        });
      }
    } finally {
      await db.delete(notifications).where(
        inArray(
          notifications.id,
          extra.map((r) => r.id),
        ),
      );
    }
  });
});

// Deterministic cases of what the properties found. Each states the contract's answer.
describe("found by the bad-input properties", () => {
  let admin: TestUser;
  beforeAll(async () => {
    admin = await input.app().signUp({ admin: true });
  });

  /** `T`: the data of a success. */
  async function call<T = unknown>(method: "GET" | "POST" | "DELETE", url: string, payload?: object) {
    const db = input.app().db.db;
    const before = await snapshotTables(db);
    const res = await input.app().app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });
    const where = `${method} ${url} ${payload ? j(payload) : ""} → ${res.statusCode} ${res.body}`;
    const body = res.json() as Envelope<T>;
    if (res.statusCode >= 400) expect(await snapshotTables(db), `${where}: a refused request changed rows`).toEqual(before);
    return { status: res.statusCode, body, where, fields: (body.error?.details ?? []).map((d) => d.field.split(".")[0]) };
  }

  /** Accepted, or refused as a validation error naming `field`: never a 5xx, never a 400 without details. */
  function acceptedOrNamed(answer: Awaited<ReturnType<typeof call>>, field: string) {
    if (answer.status < 300) return;
    expect.soft(answer.status, answer.where).toBe(400);
    expect.soft(answer.fields, `${answer.where}: details must name ${field}`).toContain(field);
  }

  it("pro ids that differ only in lone surrogates are one pro: refused at creation, or activate and rollback work (were 500)", async () => {
    // "\ud800" and "\udbff" are different strings, so the schema's no-repeat rule passes; both are stored as
    // U+FFFD, so the cohort lists one pro twice and the batch upsert touches one row twice (SQLSTATE 21000).
    for (const proIds of [
      ["\ud800", "\udbff"],
      ["x\ud800", "x\ufffd"],
    ]) {
      const created = await call<Cohort>("POST", `${R}/cohorts`, { cohortNumber: uniqueCohortNumber(), proIds });
      acceptedOrNamed(created, "proIds");
      if (created.status >= 300) continue;
      const id = created.body.data!.id;
      const check = await call("POST", `${R}/cohorts/${id}/check-gates`, { responseRate: 1, comparisonsDone: 50, legalSignoff: true });
      expect(check.status, check.where).toBe(201);
      for (const action of ["activate", "rollback"]) {
        const answer = await call("POST", `${R}/cohorts/${id}/${action}`);
        expect.soft(answer.status, answer.where).toBe(200);
      }
    }
  });

  it("a lone low surrogate after another non-ASCII unit is kept whole or refused naming the field (PGlite: 500 in pro ids, cut text, 400 without details)", async () => {
    // PGlite takes every low surrogate for the second half of a pair and leaves the unit before it out of the
    // UTF-8 length, so the parameter it sends is too short: an array literal that no longer parses (500),
    // text that loses its last bytes, or bytes that are not UTF-8 (400 "cannot be stored", no details).
    const stored = (s: string) => Buffer.from(s, "utf8").toString("utf8"); // what PostgreSQL keeps: U+FFFD
    const cohort = await call<Cohort>("POST", `${R}/cohorts`, { cohortNumber: uniqueCohortNumber(), proIds: ["p"] });
    acceptedOrNamed(await call("POST", `${R}/cohorts`, { cohortNumber: uniqueCohortNumber(), proIds: ["\u00e9\udc00"] }), "proIds");
    acceptedOrNamed(await call("POST", `${R}/cohorts/${cohort.body.data!.id}/rollback`, { reason: "a\udc00\udc00b" }), "reason");
    acceptedOrNamed(await call("DELETE", `${N}/subscriptions`, { endpoint: "a\udc00\udc00b" }), "endpoint");
    const title = "\u00e9\udc00xyz";
    const created = await call<WireOutput<"notifications.testInApp">>("POST", `${N}/test/in-app`, {
      type: "system.x",
      title,
      targetUserId: admin.id,
    });
    acceptedOrNamed(created, "title");
    if (created.status < 300) expect.soft(created.body.data!.notification.title, created.where).toBe(stored(title));
  });

  it("NUL in a notification field is a 400 naming the field (was a 400 without details)", async () => {
    const nul = "a\u0000b";
    const inApp = { type: "system.x", title: "t", targetUserId: admin.id };
    const cases: [method: "GET" | "POST" | "DELETE", url: string, payload: object | undefined, field: string][] = [
      ["POST", `${N}/test/in-app`, { ...inApp, type: nul }, "type"],
      ["POST", `${N}/test/in-app`, { ...inApp, title: nul }, "title"],
      ["POST", `${N}/test/in-app`, { ...inApp, body: nul }, "body"],
      ["POST", `${N}/test/in-app`, { ...inApp, targetUserId: nul }, "targetUserId"],
      ["POST", `${N}/test/push`, { ...inApp, targetUserId: nul }, "targetUserId"],
      ["POST", `${N}/subscriptions`, { endpoint: `https://push.invalid/${nul}`, ...PUSH_KEYS }, "endpoint"],
      ["DELETE", `${N}/subscriptions`, { endpoint: nul }, "endpoint"],
      ["GET", `${N}?search=a%00b`, undefined, "search"],
    ];
    for (const [method, url, payload, field] of cases) {
      const answer = await call(method, url, payload);
      expect.soft(answer.status, answer.where).toBe(400);
      expect.soft(answer.fields, `${answer.where}: details must name ${field}`).toContain(field);
    }
  });
});

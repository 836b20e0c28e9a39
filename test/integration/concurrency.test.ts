// Concurrency over HTTP (app.inject): many requests on one record at once must leave a state that some
// serial order could have produced, and every count the API returns must count each row exactly once.
// On PGlite the calls queue on one connection; on PostgreSQL (TEST_DATABASE_URL) they truly overlap.
import { randomBytes } from "node:crypto";
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { notifications, proRestrictionStatus, pushSubscriptions, restrictionCohorts } from "../../db/schema/index.js";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { PASSING_GATES } from "../helpers/fixtures.js";

const BASE = "/api/admin/restriction";
const INBOX = "/api/notifications";
const CATEGORIES = ["messages", "leads", "reviews", "billing", "account", "system"] as const;

describe("concurrency", () => {
  const t = useTestApp();

  type Call = { method: "GET" | "POST" | "PATCH" | "DELETE"; url: string; payload?: unknown };
  const call = (user: TestUser, { method, url, payload }: Call) =>
    t().app.inject({ method, url, headers: user.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  const statuses = (responses: LightMyRequestResponse[]) => responses.map((r) => r.statusCode);
  /** The responses whose status is not `expected`, with their bodies, so a failure shows what came back. */
  const unexpected = (responses: LightMyRequestResponse[], expected: number[]) =>
    responses.filter((r) => !expected.includes(r.statusCode)).map((r) => `${r.statusCode} ${r.body}`);

  describe("cohort activate / rollback", () => {
    it("100 parallel activations and rollbacks leave every pro matching the cohort's final status", async () => {
      const admin = await t().signUp({ admin: true });
      const prefix = `cc-${randomBytes(5).toString("hex")}`;
      const proIds = Array.from({ length: 150 }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
      const created = await call(admin, {
        method: "POST",
        url: `${BASE}/cohorts`,
        payload: { cohortNumber: uniqueCohortNumber(), proIds },
      });
      expect(created.statusCode).toBe(201);
      const cohortId = (created.json().data as { id: string }).id;
      expect(
        (await call(admin, { method: "POST", url: `${BASE}/cohorts/${cohortId}/check-gates`, payload: PASSING_GATES })).statusCode,
      ).toBe(201);

      const calls: Call[] = Array.from({ length: 100 }, (_, i) =>
        i % 2 === 0
          ? { method: "POST", url: `${BASE}/cohorts/${cohortId}/activate` }
          : { method: "POST", url: `${BASE}/cohorts/${cohortId}/rollback`, payload: { reason: `parallel ${i}` } },
      );
      const responses = await Promise.all(calls.map((c) => call(admin, c)));
      // No deadlock, no lost lock: every call is answered as it would be alone.
      expect(unexpected(responses, [200])).toEqual([]);
      responses.forEach((r, i) => {
        expect(r.json().data).toMatchObject({ id: cohortId, status: i % 2 === 0 ? "active" : "rolled_back" });
      });

      const [cohort] = await t().db.db.select().from(restrictionCohorts).where(eq(restrictionCohorts.id, cohortId));
      expect(["active", "rolled_back"]).toContain(cohort!.status);
      const active = cohort!.status === "active";
      const rows = await t().db.db.select().from(proRestrictionStatus).where(inArray(proRestrictionStatus.proId, proIds));
      expect(rows).toHaveLength(proIds.length);
      const mismatched = rows.filter((row) => row.restrictionActive !== active || row.cohortId !== cohortId);
      expect(mismatched).toEqual([]);

      // The API reads back the same state: the cohort list, one pro, and the active list.
      const listed = (await call(admin, { method: "GET", url: `${BASE}/cohorts` })).json().data as { id: string; status: string }[];
      expect(listed.find((c) => c.id === cohortId)?.status).toBe(cohort!.status);
      const one = await call(admin, { method: "GET", url: `${BASE}/${proIds[77]}` });
      expect(one.json().data).toMatchObject({ proId: proIds[77], restrictionActive: active, cohortId });
      const activeList = (await call(admin, { method: "GET", url: BASE })).json().data as { proId: string }[];
      expect(activeList.filter((s) => s.proId.startsWith(prefix))).toHaveLength(active ? proIds.length : 0);
    });
  });

  describe("cohort creation", () => {
    it("parallel creations with one cohort number: exactly one 201, every other one 409 CONFLICT", async () => {
      const admin = await t().signUp({ admin: true });
      const cohortNumber = uniqueCohortNumber();
      const responses = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          call(admin, { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber, proIds: [`dup-${cohortNumber}-${i}`] } }),
        ),
      );
      expect(statuses(responses).filter((s) => s === 201)).toHaveLength(1);
      expect(unexpected(responses, [201, 409])).toEqual([]);
      for (const r of responses.filter((r) => r.statusCode === 409)) {
        expect(r.json()).toEqual({
          success: false,
          error: { code: "CONFLICT", message: `Cohort number ${cohortNumber} already exists` },
        });
      }
      const winner = responses.find((r) => r.statusCode === 201)!.json().data as { id: string; proIds: string[] };
      const stored = await t().db.db.select().from(restrictionCohorts).where(eq(restrictionCohorts.cohortNumber, cohortNumber));
      expect(stored.map((c) => ({ id: c.id, proIds: c.proIds }))).toEqual([{ id: winner.id, proIds: winner.proIds }]);
    });
  });

  describe("push subscription upsert", () => {
    const subscriptionsAt = (endpoint: string) =>
      t().db.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, endpoint));
    const endpoint = () => `https://push.example.test/send/${randomBytes(12).toString("hex")}`;
    /** A browser's key pair and auth secret, as PushManager.subscribe() makes them. */
    const browserKeys = () => {
      const { p256dh, auth } = makeSubscriber();
      return { p256dh, auth };
    };
    const subscribe = (user: TestUser, url: string, keys: { p256dh: string; auth: string }) =>
      call(user, { method: "POST", url: `${INBOX}/subscriptions`, payload: { endpoint: url, ...keys } });

    it("parallel upserts of one endpoint by one user make exactly one row", async () => {
      const user = await t().signUp();
      const url = endpoint();
      const keys = Array.from({ length: 25 }, browserKeys);
      const responses = await Promise.all(keys.map((k) => subscribe(user, url, k)));
      expect(unexpected(responses, [200])).toEqual([]);

      const rows = await subscriptionsAt(url);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      // Every caller was answered with that one row.
      expect(new Set(responses.map((r) => (r.json().data as { subscription: { id: string } }).subscription.id))).toEqual(new Set([row.id]));
      // Its keys are one request's pair, never a mix of two.
      expect(keys).toContainEqual({ p256dh: row.p256dh, auth: row.auth });
      expect(row).toMatchObject({ userId: user.id, isActive: true });
    });

    it("parallel upserts of one endpoint by two users make exactly one row, owned by one of them", async () => {
      const [alice, bob] = [await t().signUp(), await t().signUp()];
      const url = endpoint();
      const requests = Array.from({ length: 30 }, (_, i) => {
        const user = i % 2 === 0 ? alice : bob;
        return { user, keys: browserKeys() };
      });
      const responses = await Promise.all(requests.map(({ user, keys }) => subscribe(user, url, keys)));
      expect(unexpected(responses, [200])).toEqual([]);

      const rows = await subscriptionsAt(url);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      // Owner and keys come from the same request: the row is one caller's write, whole.
      expect(requests.map(({ user, keys }) => ({ userId: user.id, ...keys }))).toContainEqual({
        userId: row.userId,
        p256dh: row.p256dh,
        auth: row.auth,
      });
      expect(row.isActive).toBe(true);

      // Only the owner lists it.
      const listedBy = async (user: TestUser) =>
        (
          (await call(user, { method: "GET", url: `${INBOX}/subscriptions` })).json().data as { subscriptions: { endpoint: string }[] }
        ).subscriptions.filter((s) => s.endpoint === url).length;
      const owner = row.userId === alice.id ? alice : bob;
      const other = owner === alice ? bob : alice;
      expect([await listedBy(owner), await listedBy(other)]).toEqual([1, 0]);
    });
  });

  describe("inbox counts", () => {
    /** `n` unread notifications for `user`, spread over every category; returns their ids. */
    async function seedInbox(user: TestUser, n: number): Promise<string[]> {
      const rows = await t()
        .db.db.insert(notifications)
        .values(
          Array.from({ length: n }, (_, i) => ({
            userId: user.id,
            eventType: `seed.${i}`,
            category: CATEGORIES[i % CATEGORIES.length]!,
            title: `Seeded ${i}`,
          })),
        )
        .returning({ id: notifications.id });
      return rows.map((r) => r.id);
    }

    const countWhere = async (ids: string[], condition: ReturnType<typeof isNull>) => {
      const [row] = await t()
        .db.db.select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(notifications)
        .where(and(inArray(notifications.id, ids), condition));
      return row!.n;
    };

    const readAll = (user: TestUser, category?: string) =>
      call(user, { method: "PATCH", url: `${INBOX}/read-all${category ? `?category=${category}` : ""}` });
    const bulkDelete = (user: TestUser, ids: string[]) => call(user, { method: "DELETE", url: `${INBOX}/bulk`, payload: { ids } });
    const sumOf = (responses: LightMyRequestResponse[], key: "updated" | "deleted") =>
      responses.reduce((sum, r) => sum + (r.json().data as Record<typeof key, number>)[key], 0);

    /** Overlapping slices of `ids` that together cover every id at least twice. */
    const overlappingSlices = (ids: string[], count: number) =>
      Array.from({ length: count }, (_, i) => {
        const start = Math.floor((i * ids.length) / count);
        return [...ids.slice(start), ...ids.slice(0, start)].slice(0, Math.ceil((ids.length * 2.5) / count));
      });

    it("parallel read-all calls (all, per category, invalid category) count each row exactly once", async () => {
      const user = await t().signUp();
      const bystander = await t().signUp();
      const ids = await seedInbox(user, 90);
      const otherIds = await seedInbox(bystander, 12);

      const categories = [undefined, "bogus", ...CATEGORIES, undefined, ...CATEGORIES, "bogus", undefined];
      const responses = await Promise.all(categories.map((c) => readAll(user, c)));
      expect(unexpected(responses, [200])).toEqual([]);
      expect(sumOf(responses, "updated")).toBe(ids.length);
      expect(await countWhere(ids, isNull(notifications.readAt))).toBe(0);
      expect(await countWhere(otherIds, isNull(notifications.readAt))).toBe(otherIds.length);
      expect((await call(user, { method: "GET", url: `${INBOX}/unread-count` })).json().data).toEqual({ count: 0 });
    });

    it("read-all racing bulk and single deletes: updated counts the rows read, deleted the rows removed, once each", async () => {
      const user = await t().signUp();
      const ids = await seedInbox(user, 80);
      const singles = ids.filter((_, i) => i % 3 === 0);

      const readAlls = Array.from({ length: 8 }, (_, i) => readAll(user, i % 2 ? CATEGORIES[i % CATEGORIES.length] : undefined));
      const bulks = overlappingSlices(ids, 8).map((slice) => bulkDelete(user, slice));
      const singleDeletes = singles.map((id) => call(user, { method: "DELETE", url: `${INBOX}/${id}` }));
      const [reads, bulk, single] = await Promise.all([Promise.all(readAlls), Promise.all(bulks), Promise.all(singleDeletes)]);

      expect(unexpected([...reads, ...bulk], [200])).toEqual([]);
      // A single delete either removed the row (200) or found it already removed (404): never anything else.
      expect(unexpected(single, [200, 404])).toEqual([]);
      for (const r of single.filter((r) => r.statusCode === 404)) expect(r.json().error.code).toBe("NOT_FOUND");

      const singleRemoved = single.filter((r) => r.statusCode === 200).length;
      expect(await countWhere(ids, isNull(notifications.deletedAt))).toBe(0);
      expect(sumOf(bulk, "deleted") + singleRemoved).toBe(ids.length);
      // A row deleted before read-all reached it stays unread and is not counted as updated.
      expect(sumOf(reads, "updated")).toBe(await countWhere(ids, isNotNull(notifications.readAt)));
    });

    it("per-id mark-read racing bulk deletes: each mark-read succeeds exactly when it read a row", async () => {
      const user = await t().signUp();
      const ids = await seedInbox(user, 60);

      const marks = ids.map((id) => call(user, { method: "PATCH", url: `${INBOX}/${id}/read` }));
      const bulks = overlappingSlices(ids, 6).map((slice) => bulkDelete(user, slice));
      const [marked, bulk] = await Promise.all([Promise.all(marks), Promise.all(bulks)]);

      expect(unexpected(bulk, [200])).toEqual([]);
      expect(unexpected(marked, [200, 404])).toEqual([]);
      marked.forEach((r, i) => {
        if (r.statusCode === 404) {
          expect(r.json().error).toEqual({ code: "NOT_FOUND", message: `Notification ${ids[i]} not found` });
        }
      });
      expect(sumOf(bulk, "deleted")).toBe(ids.length);
      // Only mark-read sets readAt here: the rows it answered 200 for are exactly the read rows.
      const readIds = ids.filter((_, i) => marked[i]!.statusCode === 200);
      expect(await countWhere(ids, isNotNull(notifications.readAt))).toBe(readIds.length);
      expect(await countWhere(readIds, isNull(notifications.readAt))).toBe(0);
    });
  });
});

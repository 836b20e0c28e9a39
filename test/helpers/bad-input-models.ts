// The bad-input models: one row per REST route, saying which path parameters, body fields and query keys it
// takes, and for each the values it must accept and the values it must refuse naming the field.

import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { auditActions, auditTargetTypes } from "../../db/schema/index.js";
import { encodeCursor } from "../../server/audit/listing-cursor.js";
import { isNotificationUrl } from "../../server/notifications/urls.js";
import type { TestUser } from "./app.js";
import {
  type BodyModel,
  bad,
  deepJson,
  INT32_MAX,
  j,
  nonBlank,
  PAGE_VALUES,
  type QueryModel,
  type Segment,
  segments,
  storable,
  text,
  times,
  validOf,
} from "./bad-input-arbitraries.js";
import { accountModels } from "./bad-input-models-accounts.js";
import { auditLogModels } from "./bad-input-models-audit-log.js";
import { apiKeyModels, pushSubscriptionModels } from "./bad-input-models-keys.js";

export const R = "/api/admin/restriction";
/** The query form of the per-pro routes, for any id (issue AD.9). */
export const P = "/api/admin/pro-restriction";
export const N = "/api/notifications";
export const K = "/api/admin/api-keys";

/** The records generated requests name, so that some ids are real. */
export type Pools = {
  cohortIds: string[];
  proIds: string[];
  /** The admin's own notifications (the admin is the caller of every request). */
  ownNotificationIds: string[];
  /** The user's: the admin may not touch them through the inbox. */
  othersNotificationIds: string[];
  /** Disposable users the account routes act on (never the calling admin). */
  userIds: string[];
};

export type RouteModel = {
  /** A body of a strict object: a key the model does not name is refused (400, field `(body)`). */
  strict?: true;
  params?: Record<string, () => fc.Arbitrary<Segment>>;
  body?: () => BodyModel;
  query?: () => QueryModel;
};

/** The models by `METHOD path`; they read the pools and the people only when a test builds them. */
export function routeModels(pools: Pools, people: () => { admin: TestUser; user: TestUser }): Record<string, RouteModel> {
  const cohortId = () => segments(pools.cohortIds, true);
  const notificationId = () => segments([...pools.ownNotificationIds, ...pools.othersNotificationIds], true);
  const proId = () => segments(pools.proIds, false);
  const validProId = text(200).filter((s) => nonBlank(s) && storable(s));
  const categoryValue = fc.oneof(fc.constantFrom("messages", "leads", "reviews", "billing", "account", "system"), text(30));

  /** `stored`: the fields that reach the database, where a NUL must be refused like any other bad value. */
  const testNotification = (targets: () => string[], stored: string[]): BodyModel => {
    const refused = (name: string, ...values: unknown[]) => (stored.includes(name) ? bad(...values, "a\u0000b") : bad(...values));
    return {
      type: {
        required: true,
        valid: text(100)
          .filter((s) => nonBlank(s) && storable(s))
          .map(j),
        invalid: refused("type", "", "   ", times("t", 101), 5, null, [], {}),
      },
      title: {
        required: true,
        valid: text(200)
          .filter((s) => nonBlank(s) && storable(s))
          .map(j),
        invalid: refused("title", "", "\t", times("t", 201), 5, null, ["t"]),
      },
      targetUserId: {
        required: true,
        valid: fc
          .oneof(
            { weight: 3, arbitrary: fc.constantFrom(...targets()) },
            { weight: 1, arbitrary: text(200).filter((s) => nonBlank(s) && storable(s)) },
          )
          .map(j),
        invalid: refused("targetUserId", "", " ", times("u", 201), 5, null, {}),
      },
      body: {
        valid: fc.oneof(fc.constant(null), text(2000).filter(storable)).map(j),
        invalid: refused("body", times("b", 2001), 5, [], {}, true),
      },
      url: {
        // An https: URL or a path of the app (server/notifications/urls.ts); empty counts as absent.
        valid: fc
          .oneof(
            fc.constant(null),
            fc.constant(""),
            fc.webUrl({ validSchemes: ["https"], withQueryParameters: true }),
            fc.webUrl().map((u) => `${new URL(u).pathname}${new URL(u).search}`),
          )
          .filter((u) => u === null || u === "" || isNotificationUrl(u))
          .map(j),
        invalid: bad(
          times("u", 2049),
          `/${times("u", 2048)}`,
          "javascript:alert(1)",
          "data:,x",
          "//evil.example",
          "http://a.example",
          5,
          [],
          true,
        ),
      },
      // RFC 8030's Topic (server/push/topic.ts): sent with a test push, ignored in-app.
      topic: {
        valid: fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/).map(j),
        invalid: bad("", "has space", "dot.ted", times("t", 33), "é", 5, null, []),
      },
    };
  };

  const auditQuery = (): QueryModel => {
    const exactText = (valid: fc.Arbitrary<string>, invalid: fc.Arbitrary<string>) => ({ exact: true, valid, invalid });
    const enumOf = (values: readonly string[]) =>
      exactText(fc.constantFrom(...values), fc.constantFrom("", "nope", values[0]!.toUpperCase(), `${values[0]} `));
    const id = exactText(
      text(200).filter((s) => nonBlank(s) && storable(s)),
      fc.constantFrom("", times("i", 201), "a\u0000b"),
    );
    const instant = exactText(
      fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom("", "yesterday", "2026-11-21", "2026-13-01T00:00:00Z", "1700000000", "2026-11-21T10:00:00"),
    );
    return {
      action: enumOf(auditActions),
      targetType: enumOf(auditTargetTypes),
      targetId: id,
      actorId: id,
      actorEmail: exactText(
        text(320).filter((s) => nonBlank(s) && storable(s)),
        fc.constantFrom("", times("e", 321), "a\u0000b@x.io"),
      ),
      proId: id,
      since: instant,
      until: instant,
      limit: exactText(fc.integer({ min: 1, max: 200 }).map(String), fc.constantFrom("", "0", "201", "1.5", "-1", "abc", "1e3")),
      cursor: exactText(fc.integer({ min: 1, max: 1e9 }).map(encodeCursor), fc.constantFrom("", "not a cursor!", "c2Vx", times("c", 101))),
    };
  };

  /** A pro change request's fields besides the pro: the /:proId path and the query form take the same. */
  const proChangeRequestBody = (): BodyModel => ({
    action: {
      required: true,
      valid: fc.constant("activate").map(j),
      invalid: bad("", "ACTIVATE", "rollback", "grant-admin", 1, null, []),
    },
    reason: {
      valid: fc.oneof(text(500).filter(storable).map(j), validOf(null, "")),
      invalid: bad(times("r", 501), 5, [], {}, "a\u0000b"),
    },
  });

  /** The query form's pro id: any id, the path words among them; blank, too long or NUL refused. */
  const proIdQuery = (): QueryModel => ({
    proId: {
      required: true,
      exact: true,
      valid: fc.oneof(fc.constantFrom(...pools.proIds, "cohorts", "change-requests"), validProId),
      invalid: fc.constantFrom("", "   ", times("p", 201), "a\u0000b"),
    },
  });

  /** A new cohort's body: creation and its preview take the same. */
  const newCohortBody = () => ({
    cohortNumber: {
      required: true,
      valid: fc.oneof(fc.integer({ min: 1, max: INT32_MAX }).map(j), validOf(1, INT32_MAX)),
      invalid: fc.oneof(bad(0, -1, 2 ** 31, 2 ** 31 + 1, 1.5, 1e308, "5", "", null, true, [], {}, [1]), fc.constant({ json: "1e400" })),
    },
    proIds: {
      required: true,
      valid: fc.oneof(
        fc.uniqueArray(validProId, { minLength: 1, maxLength: 8 }).map(j),
        fc.constant(j(Array.from({ length: 500 }, (_, i) => `p-${i}`))),
      ),
      invalid: fc.oneof(
        bad([], "p", null, {}, { 0: "a" }, 5, [""], ["  "], ["a", "a"], [7], [null], [["a"]], [times("x", 201)], ["a\u0000b"]),
        fc.constant({ json: j(Array.from({ length: 501 }, (_, i) => `p-${i}`)) }),
        deepJson.filter((s) => s.startsWith("[")).map((json) => ({ json })),
      ),
    },
  });

  return {
    [`POST ${R}/cohorts`]: { body: newCohortBody },
    // The same body as creation, the number optional: the preview of a new cohort.
    [`POST ${R}/cohorts/preview`]: {
      body: () => {
        const { cohortNumber, proIds } = newCohortBody();
        return { cohortNumber: { ...cohortNumber, required: false }, proIds };
      },
    },
    [`GET ${R}/cohorts`]: {},
    [`POST ${R}/cohorts/:id/check-gates`]: {
      params: { id: cohortId },
      body: () => ({
        responseRate: {
          valid: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }).map(j), validOf(0, 1, 0.6, 0.5999, null, 1e-300)),
          invalid: fc.oneof(bad(-0.0001, 1.0001, -1, 2, 1e308, "0.7", "", true, [], {}), fc.constant({ json: "1e400" })),
        },
        comparisonsDone: {
          valid: fc.oneof(fc.integer({ min: 0, max: INT32_MAX }).map(j), validOf(0, 49, 50, INT32_MAX, null)),
          invalid: bad(-1, 2.5, 2 ** 31, -0.5, 1e20, "50", true, [], {}),
        },
        legalSignoff: { valid: validOf(true, false, null), invalid: bad("true", "false", 1, 0, "yes", [], {}) },
      }),
    },
    [`POST ${R}/cohorts/:id/activate`]: { params: { id: cohortId } },
    [`POST ${R}/cohorts/:id/rollback`]: {
      params: { id: cohortId },
      body: () => ({
        reason: {
          valid: fc.oneof(text(500).filter(storable).map(j), validOf(null, "", times("r", 500), times("\ud83d\ude00", 500))),
          invalid: bad(times("r", 501), times("\ud83d\ude00", 501), 12, true, [], {}, "a\u0000b"),
        },
      }),
    },
    [`GET ${R}`]: {},
    [`GET ${R}/cohorts/:id/checks`]: { params: { id: cohortId } },
    [`GET ${R}/cohorts/:id/coverage`]: { params: { id: cohortId } },
    [`GET ${R}/cohorts/:id/preview`]: {
      params: { id: cohortId },
      query: () => ({
        action: {
          required: true,
          exact: true,
          valid: fc.constantFrom("activate", "rollback"),
          invalid: fc.constantFrom("", "ACTIVATE", "delete", "activate ", "%zz", "a\u0000b"),
        },
      }),
    },
    [`POST ${R}/cohorts/:id/change-requests`]: {
      params: { id: cohortId },
      body: () => ({
        action: {
          required: true,
          valid: fc.constantFrom("activate", "rollback").map(j),
          invalid: bad("", "ACTIVATE", "delete", 1, null, [], {}),
        },
        reason: {
          valid: fc.oneof(text(500).filter(storable).map(j), validOf(null, "")),
          invalid: bad(times("r", 501), 5, [], {}, "a\u0000b"),
        },
      }),
    },
    [`GET ${R}/change-requests`]: {
      query: () => ({
        status: {
          exact: true,
          valid: fc.constantFrom("pending", "applied", "stale", "rejected", "cancelled", "expired"),
          invalid: fc.constantFrom("", "PENDING", "done", "pending "),
        },
        cohortId: { exact: true, valid: text(100).filter(storable), invalid: fc.constantFrom(times("c", 101)) },
      }),
    },
    [`GET ${R}/change-requests/:id`]: { params: { id: () => segments([], true) } },
    [`POST ${R}/change-requests/:id/approve`]: {
      params: { id: () => segments([], true) },
      body: () => ({
        comment: { valid: fc.oneof(text(500).filter(storable).map(j), validOf(null)), invalid: bad(times("c", 501), 5, [], {}) },
      }),
    },
    [`POST ${R}/change-requests/:id/reject`]: {
      params: { id: () => segments([], true) },
      body: () => ({
        comment: {
          required: true,
          valid: text(500)
            .filter((x) => nonBlank(x) && storable(x))
            .map(j),
          invalid: bad("", "  ", times("c", 501), 5, null, []),
        },
      }),
    },
    [`POST ${R}/change-requests/:id/cancel`]: { params: { id: () => segments([], true) } },
    [`GET ${R}/:proId`]: { params: { proId } },
    [`GET ${R}/:proId/history`]: { params: { proId } },
    "GET /api/admin/audit": { query: auditQuery },
    [`POST ${R}/:proId/activate`]: { params: { proId } },
    [`POST ${R}/:proId/rollback`]: { params: { proId } },
    "GET /api/admin/settings": {},
    [`GET ${P}`]: { query: proIdQuery },
    [`GET ${P}/history`]: { query: proIdQuery },
    [`POST ${P}/activate`]: { query: proIdQuery },
    [`POST ${P}/rollback`]: { query: proIdQuery },
    [`POST ${P}/change-requests`]: {
      body: () => ({
        proId: {
          required: true,
          valid: fc.oneof(fc.constantFrom(...pools.proIds, "cohorts", "change-requests"), validProId).map(j),
          invalid: bad("", "   ", times("p", 201), 5, null, [], {}, "a\u0000b"),
        },
        ...proChangeRequestBody(),
      }),
    },
    [`POST ${R}/:proId/change-requests`]: { params: { proId }, body: proChangeRequestBody },

    [`GET ${N}`]: {
      query: () => ({
        category: { valid: categoryValue },
        search: {
          valid: text(200).filter((s) => storable(s) && s.length <= 200),
          invalid: fc.oneof(
            fc.integer({ min: 201, max: 3000 }).map((n) => times("s", n)),
            fc.constant("a\u0000b"),
          ),
        },
        page: { valid: fc.oneof(fc.constantFrom(...PAGE_VALUES), fc.integer().map(String)) },
        limit: { valid: fc.oneof(fc.constantFrom(...PAGE_VALUES), fc.integer().map(String)) },
      }),
    },
    [`GET ${N}/unread-count`]: {},
    [`PATCH ${N}/read-all`]: { query: () => ({ category: { valid: categoryValue } }) },
    [`DELETE ${N}/bulk`]: {
      body: () => ({
        ids: {
          required: true,
          valid: fc.oneof(
            fc
              .array(fc.oneof(fc.uuid(), fc.constantFrom(...pools.othersNotificationIds), text(100).filter(storable)), {
                minLength: 1,
                maxLength: 5,
              })
              .map(j),
            fc.constant(j(Array.from({ length: 1000 }, () => randomUUID()))),
          ),
          invalid: fc.oneof(
            bad([], "x", {}, 5, [1], [null], [times("x", 101)], [[]], null),
            fc.constant({ json: j(Array.from({ length: 1001 }, () => randomUUID())) }),
          ),
        },
      }),
    },
    [`GET ${N}/subscriptions`]: {},
    [`GET ${N}/vapid-public-key`]: {},
    [`GET ${N}/app`]: {},
    [`POST ${N}/test/in-app`]: {
      body: () => testNotification(() => [people().admin.id, people().user.id], ["type", "title", "targetUserId", "body"]),
    },
    // Never the admin: only the admin subscribes, and no push may leave the process.
    [`POST ${N}/test/push`]: { body: () => testNotification(() => [people().user.id], ["targetUserId"]) },
    [`GET ${N}/test/subscriptions`]: {},
    [`DELETE ${N}/test/subscriptions`]: {},
    [`PATCH ${N}/:id/read`]: { params: { id: notificationId } },
    [`DELETE ${N}/:id`]: { params: { id: notificationId } },

    [`GET ${N}/preferences`]: {},
    [`PATCH ${N}/preferences`]: {
      body: () =>
        Object.fromEntries(
          ["messages", "leads", "reviews", "billing", "account", "system"].map((category) => [
            category,
            {
              valid: fc.record({ inApp: fc.boolean(), push: fc.boolean() }, { requiredKeys: [] }).map(j),
              invalid: bad(true, "off", null, [], { inApp: "yes" }, { push: 1 }, { email: true }),
            },
          ]),
        ),
    },

    ...pushSubscriptionModels,
    ...apiKeyModels,
    ...accountModels(() => pools.userIds),
    ...auditLogModels,
  };
}

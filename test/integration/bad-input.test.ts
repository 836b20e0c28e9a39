// Bad input on every REST route, generated with fast-check: path ids, JSON bodies and query strings with wrong
// types, huge strings, deep nesting, unicode (NUL, lone surrogates), SQL and LIKE metacharacters, numbers at
// and past each limit, duplicated and extra fields, arrays where objects belong, malformed JSON and URLs.
// For every request: no 5xx; every 4xx is the envelope (docs/api.md#errors); a validation error about fields names them
// in `details`; unknown ids are 404; and a refused request changes no row of the service's tables.
import { randomUUID } from "node:crypto";
import { inArray } from "drizzle-orm";
import fc from "fast-check";
import webpush from "web-push";
import { beforeAll, describe, expect, it } from "vitest";
import { gateChecks, notifications, pros, restrictionCohorts } from "../../db/schema/index.js";
import { restRoutes, type RestRoute } from "../../server/rest/routes.js";
import { useTestApp, uniqueCohortNumber, type TestUser } from "../helpers/app.js";
import { snapshotTables } from "../helpers/snapshot.js";

// Configured, so POST /test/push answers from its inputs rather than the unconfigured 500 (docs/api.md#errors).
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const NUM_RUNS = 40;
const INT32_MAX = 2 ** 31 - 1;
const R = "/api/admin/restriction";
const N = "/api/notifications";

const STATUS_OF_CODE: Record<string, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
};

// ---- values ----

const j = (value: unknown) => JSON.stringify(value);
const times = (s: string, n: number) => s.repeat(n);

/** Any UTF-16 code unit, lone surrogates and NUL included (fast-check's own units never give lone surrogates). */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const NASTY = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "\ud83d\ude00",
  "\u202e\u202d",
  "\ufeff",
  "\uffff",
  "' OR 1=1 --",
  "'; DROP TABLE restriction_cohorts; --",
  '" OR ""="',
  "%",
  "_",
  "\\",
  "%_\\",
  "\\%",
  "$1",
  "::text",
  "NULL",
  "null",
  "undefined",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "__proto__",
  "constructor",
  "\t\n\r",
  " ",
];
const nasty = fc.constantFrom(...NASTY);
/** Short strings of every kind: anything a caller might type or forge. */
const text = (maxLength: number) =>
  fc.oneof(
    nasty,
    fc.string({ unit: anyCodeUnit, maxLength: Math.min(maxLength, 40) }),
    fc.string({ unit: "grapheme", maxLength: Math.min(maxLength, 40) }),
    fc.string({ unit: "grapheme-ascii", minLength: maxLength - 5, maxLength }),
  );
/** Text the service stores as given: no NUL and no lone surrogate (both refused naming the field). */
const storable = (s: string) => !s.includes("\u0000") && s.isWellFormed();
/** Length as the service's schemas count it: in code points (an emoji is one), not UTF-16 units. */
const codePoints = (s: string) => [...s].length;
const nonBlank = (s: string) => s.trim().length > 0;

/** JSON text nested `depth` levels deep, as arrays or objects. */
const deepJson = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${times("[", depth)}1${times("]", depth)}` : `${times('{"a":', depth)}1${times("}", depth)}`));

/** Any JSON value, as text: valid by accident at times, so never counted as a bad field's value. */
const garbageJson: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map(j),
  text(60).map(j),
  fc.constantFrom("1e400", "-1e400", "1e-400", "-0", "123456789012345678901234567890", "true", "null", "[]", "{}"),
  deepJson,
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => j(times("x", n))),
);

// ---- bodies ----

/** A field of a JSON body (or of a query): valid values, and values the route must refuse naming the field. */
type FieldModel = {
  required?: boolean;
  /** JSON text of acceptable values. */
  valid: fc.Arbitrary<string>;
  /** JSON text of refused values; `late` ones are refused by the handler, after the schema. */
  invalid: fc.Arbitrary<{ json: string; late?: boolean }>;
};
type BodyModel = Record<string, FieldModel>;

const bad = (...values: unknown[]) => fc.constantFrom(...values.map((v) => ({ json: j(v) })));
const badLate = (...values: unknown[]) => fc.constantFrom(...values.map((v) => ({ json: j(v), late: true })));
const validOf = (...values: unknown[]) => fc.constantFrom(...values.map(j));

/** Keys a caller might add to take over fields the service sets itself (mass assignment), and odd names. */
const extraKey = fc.constantFrom(
  "id",
  "status",
  "activatedAt",
  "userId",
  "isActive",
  "allGatesMet",
  "logLive",
  "blockedBy",
  "role",
  "cohortId",
  "deletedAt",
  "readAt",
  "constructor",
  "toString",
  "",
  "a.b",
  "\u0000",
);

type Payload = { text?: string; contentType?: string };
type BodyCase = Payload & { bad: string[]; late: string[] };

function entriesText(entries: [string, string][]) {
  return `{${entries.map(([k, v]) => `${j(k)}:${v}`).join(",")}}`;
}

/** A JSON object body from the model: each field valid, refused or missing, plus extra and duplicated keys. */
function objectBody(model: BodyModel): fc.Arbitrary<BodyCase> {
  const names = Object.keys(model);
  const choice = (field: FieldModel) =>
    fc.oneof(
      { weight: 10, arbitrary: field.valid.map((json) => ({ kind: "valid" as const, json, late: false })) },
      { weight: 2, arbitrary: field.invalid.map((v) => ({ kind: "bad" as const, json: v.json, late: v.late ?? false })) },
      { weight: 1, arbitrary: fc.constant({ kind: "omit" as const, json: "", late: false }) },
    );
  return fc
    .record({
      values: fc.record(Object.fromEntries(names.map((name) => [name, choice(model[name]!)]))),
      extras: fc.array(fc.tuple(extraKey, garbageJson), { maxLength: 2 }),
      // Earlier duplicates of a field: JSON.parse keeps the last, so they must not matter.
      shadowed: fc.array(fc.tuple(fc.constantFrom(...names), garbageJson), { maxLength: 2 }),
      contentType: fc.constantFrom("application/json", "application/json", "application/json; charset=utf-8"),
    })
    .map(({ values, extras, shadowed, contentType }) => {
      const entries: [string, string][] = [...extras.filter(([k]) => !names.includes(k))];
      const badFields: string[] = [];
      const late: string[] = [];
      for (const name of names) {
        const v = values[name]!;
        if (v.kind === "omit") {
          if (model[name]!.required) badFields.push(name);
          continue;
        }
        for (const [key, json] of shadowed) if (key === name) entries.push([key, json]);
        entries.push([name, v.json]);
        if (v.kind === "bad") (v.late ? late : badFields).push(name);
      }
      return { text: entriesText(entries), contentType, bad: badFields, late };
    });
}

/** Bodies that are no JSON object at all, or that Fastify must refuse before any route runs. */
const strangeBody: fc.Arbitrary<BodyCase> = fc.oneof(
  // JSON, but not an object: arrays where objects belong, scalars, deep nesting.
  fc
    .oneof(
      fc.constantFrom("[]", "[{}]", '[{"cohortNumber":1,"proIds":["a"]}]', '"body"', "42", "-0", "true", "1e400"),
      fc.array(garbageJson, { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
      deepJson.filter((s) => s.startsWith("[")),
    )
    .map((text) => ({ text, contentType: "application/json", bad: [], late: [] })),
  // Not JSON.
  fc
    .constantFrom(
      '{"cohortNumber": 5,',
      "{cohortNumber: 5}",
      "{'a': 1}",
      '{"a":1}}',
      "\ufeff{}x",
      "NaN",
      "undefined",
      '{"a":"\\ud800\\u"}',
      '{"__proto__":{"isAdmin":true}}',
      '{"a":{"__proto__":{"x":1}}}',
    )
    .map((text) => ({ text, contentType: "application/json", bad: [], late: [] })),
  // JSON under another content type: text/plain arrives as a string (no object), the others are refused.
  fc
    .constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml")
    .map((contentType) => ({ text: "{}", contentType, bad: [], late: [] })),
);

/** Over the body size limit: the service must refuse it before parsing (413). */
const tooLarge: fc.Arbitrary<BodyCase> = fc.constant({
  text: j({ proIds: [times("x", 2_500_000)] }),
  contentType: "application/json",
  bad: [],
  late: [],
});

function bodyCases(model: BodyModel | undefined): fc.Arbitrary<BodyCase | undefined> {
  const noBody = fc.constant(undefined);
  const empty: fc.Arbitrary<BodyCase> = fc.constantFrom<BodyCase>(
    { text: "", contentType: "application/json", bad: [], late: [] },
    { text: "null", contentType: "application/json", bad: [], late: [] },
    { text: "{}", contentType: "application/json", bad: [], late: [] },
  );
  // A route without body fields ignores a body, but Fastify still parses one.
  const object = model ? objectBody(model) : fc.dictionary(extraKey, garbageJson, { maxKeys: 3 }).map(objectCase);
  return fc.oneof(
    { weight: 2, arbitrary: noBody },
    { weight: 2, arbitrary: empty },
    { weight: 16, arbitrary: object },
    { weight: 6, arbitrary: strangeBody },
    { weight: 1, arbitrary: tooLarge },
  );
}

function objectCase(values: Record<string, string>): BodyCase {
  return { text: entriesText(Object.entries(values)), contentType: "application/json", bad: [], late: [] };
}

// ---- paths and query strings ----

/** Percent-encodes every byte of the UTF-8 form but [A-Za-z0-9_~-]; lone surrogates become U+FFFD, as on the server. */
function encode(s: string): { raw: string; decoded: string } {
  const bytes = Buffer.from(s, "utf8");
  let raw = "";
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    raw += /[A-Za-z0-9_~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return { raw, decoded: bytes.toString("utf8") };
}

type Segment = { raw: string; decoded: string | null; known: boolean };

/** A path parameter: a real record's id, an unknown but decodable one, or a malformed / over-long one. */
function segments(known: string[], uuids: boolean): fc.Arbitrary<Segment> {
  const decodable = fc
    .oneof(text(300), fc.uuid(), fc.string({ unit: "grapheme", minLength: 150, maxLength: 300 }))
    // Not "", "." or "..", which the router resolves, nor "cohorts", a static path of its own.
    .filter((s) => s.length > 0 && !/^\.+$/.test(s) && s !== "cohorts")
    .map((s) => ({ ...encode(s), known: false }))
    .filter((s) => s.raw.length <= 3000);
  const arbitraries: fc.WeightedArbitrary<Segment>[] = [
    { weight: 4, arbitrary: decodable },
    { weight: 2, arbitrary: nasty.map((s) => ({ ...encode(s), known: false })) },
    { weight: 2, arbitrary: fc.uuid().map((u) => ({ raw: u, decoded: u, known: false })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("%", "%zz", "%ED%A0%80", "%C0%AF", "%FF", "%E0%A4%A", "abc%", "%%41", "%F0%9F%98")
        .map((raw) => ({ raw, decoded: null, known: false })),
    },
    { weight: 1, arbitrary: fc.integer({ min: 5001, max: 9000 }).map((n) => ({ raw: times("a", n), decoded: null, known: false })) },
  ];
  if (known.length) {
    arbitraries.push({ weight: 3, arbitrary: fc.constantFrom(...known).map((id) => ({ ...encode(id), known: true })) });
    // PostgreSQL reads a UUID in any case.
    if (uuids) arbitraries.push({ weight: 1, arbitrary: fc.constantFrom(...known).map((id) => ({ ...encode(id.toUpperCase()), known: true })) });
  }
  return fc.oneof(...arbitraries);
}

type QueryCase = { text: string; bad: string[] };

const PAGE_VALUES = [
  "0",
  "-1",
  "1",
  "2",
  "2.5",
  "100",
  "101",
  "1e309",
  "-1e309",
  "NaN",
  "Infinity",
  "-Infinity",
  "9007199254740993",
  "2147483648",
  "0x10",
  " 5 ",
  "",
  "abc",
  "-0",
  "1e2",
  "\u0663",
];

/** A query string: the model's keys with valid or refused values, repeated keys, odd keys, raw %-junk. */
function queryCases(model: Record<string, { valid: fc.Arbitrary<string>; invalid?: fc.Arbitrary<string> }>): fc.Arbitrary<QueryCase> {
  const names = Object.keys(model);
  const pair = fc.oneof(
    ...names.map((name) => model[name]!.valid.map((v) => ({ key: name, raw: encode(v).raw, bad: false }))),
    ...names.flatMap((name) => {
      const invalid = model[name]!.invalid;
      return invalid ? [invalid.map((v) => ({ key: name, raw: encode(v).raw, bad: true }))] : [];
    }),
    // Raw, as a client might send them: odd keys, repeated keys, %-escapes that do not decode.
    fc
      .tuple(fc.constantFrom("__proto__", "constructor", "page%5B%5D", "search%5B0%5D", "", "%00", "a%zz", ...names), fc.constantFrom("%", "%zz", "%ED%A0%80", "=", "", "%C0%AF"))
      .map(([key, raw]) => ({ key, raw, bad: false })),
    fc.tuple(extraKey, text(20)).map(([key, v]) => ({ key: encode(key).raw, raw: encode(v).raw, bad: false })),
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => ({
    text: pairs.map((p) => `${p.key}=${p.raw}`).join("&"),
    bad: [...new Set(pairs.filter((p) => p.bad).map((p) => p.key))],
  }));
}

// ---- the test ----

describe("bad input on every REST route", () => {
  // The test-push rate limit is the hardening tests' subject; here it would only hide what the inputs get.
  const t = useTestApp({ push: { vapid }, limits: { testPush: { max: 1_000_000, timeWindowMs: 60_000 } } });
  let admin: TestUser;
  let user: TestUser;
  const pools = {
    cohortIds: [] as string[],
    proIds: [] as string[],
    /** The admin's own notifications (the admin is the caller of every request). */
    ownNotificationIds: [] as string[],
    /** The user's: the admin may not touch them through the inbox. */
    othersNotificationIds: [] as string[],
  };

  beforeAll(async () => {
    admin = await t().signUp({ admin: true });
    user = await t().signUp();
    const db = t().db.db;
    const cohorts = await db
      .insert(restrictionCohorts)
      .values([
        { cohortNumber: 101, proIds: ["pool-pro-1", "pool-pro-2"] },
        { cohortNumber: 102, proIds: ["pool-pro-2", "pool-pro-3"] },
      ])
      .returning();
    pools.cohortIds = cohorts.map((c) => c.id);
    await db.insert(gateChecks).values({
      cohortId: cohorts[0]!.id,
      responseRate: 0.9,
      comparisonsDone: 60,
      logLive: true,
      legalSignoff: true,
      allGatesMet: true,
      blockedBy: null,
    });
    pools.proIds = ["pool-pro-1", "pool-pro-2", "pool-pro-3", "pool pro/ü %_"];
    await db.insert(pros).values(pools.proIds.map((id) => ({ id, name: `Pro ${id}` })));
    const caller = t().caller(admin);
    for (const owner of [admin, user]) {
      for (const type of ["message.received", "invoice.due", "weekly_digest"]) {
        const { notification } = await caller.notifications.testInApp({ type, title: `${type} 100%_ \\`, targetUserId: owner.id });
        (owner === admin ? pools.ownNotificationIds : pools.othersNotificationIds).push(notification.id);
      }
    }
    await caller.notifications.subscribe({ endpoint: "https://push.invalid/admin-1", p256dh: key(65), auth: key(16) });
    await caller.restriction.activatePro({ proId: "pool-pro-1" });
  });

  const key = (bytes: number, fill = 4) => Buffer.alloc(bytes, fill).toString("base64url");

  // ---- the models: one row per REST route ----

  type RouteModel = {
    params?: Record<string, () => fc.Arbitrary<Segment>>;
    body?: () => BodyModel;
    query?: () => Record<string, { valid: fc.Arbitrary<string>; invalid?: fc.Arbitrary<string> }>;
  };

  const cohortId = () => segments(pools.cohortIds, true);
  const notificationId = () => segments([...pools.ownNotificationIds, ...pools.othersNotificationIds], true);
  const proId = () => segments(pools.proIds, false);
  const validProId = text(200).filter((s) => nonBlank(s) && storable(s));
  const categoryValue = fc.oneof(fc.constantFrom("messages", "leads", "reviews", "billing", "account", "system"), text(30));

  /** `stored`: the fields that reach the database, where a NUL must be refused like any other bad value. */
  const testNotification = (targets: () => string[], stored: string[]): BodyModel => {
    const refused = (name: string, ...values: unknown[]) =>
      stored.includes(name) ? bad(...values, "a\u0000b") : bad(...values);
    return {
      type: { required: true, valid: text(100).filter((s) => nonBlank(s) && storable(s)).map(j), invalid: refused("type", "", "   ", times("t", 101), 5, null, [], {}) },
      title: { required: true, valid: text(200).filter((s) => nonBlank(s) && storable(s)).map(j), invalid: refused("title", "", "\t", times("t", 201), 5, null, ["t"]) },
      targetUserId: {
        required: true,
        valid: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...targets()) }, { weight: 1, arbitrary: text(200).filter((s) => nonBlank(s) && storable(s)) }).map(j),
        invalid: refused("targetUserId", "", " ", times("u", 201), 5, null, {}),
      },
      body: { valid: fc.oneof(fc.constant(null), text(2000).filter(storable)).map(j), invalid: refused("body", times("b", 2001), 5, [], {}, true) },
      url: { valid: fc.oneof(fc.constant(null), text(2048).filter(storable), fc.webUrl()).map(j), invalid: bad(times("u", 2049), 5, [], true) },
    };
  };

  const models: Record<string, RouteModel> = {
    [`POST ${R}/cohorts`]: {
      body: () => ({
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
      }),
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
    [`GET ${R}/:proId`]: { params: { proId } },
    [`POST ${R}/:proId/activate`]: { params: { proId } },
    [`POST ${R}/:proId/rollback`]: { params: { proId } },

    [`GET ${N}`]: {
      query: () => ({
        category: { valid: categoryValue },
        search: {
          valid: text(200).filter((s) => storable(s) && s.length <= 200),
          invalid: fc.oneof(fc.integer({ min: 201, max: 3000 }).map((n) => times("s", n)), fc.constant("a\u0000b")),
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
            fc.array(fc.oneof(fc.uuid(), fc.constantFrom(...pools.othersNotificationIds), text(100).filter(storable)), { minLength: 1, maxLength: 5 }).map(j),
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
    [`POST ${N}/subscriptions`]: {
      body: () => ({
        endpoint: {
          required: true,
          valid: fc.oneof(
            fc.constantFrom("https://push.invalid/admin-1", "https://push.invalid/a?b=c#d", "https://[::1]/x"),
            text(40).filter(storable).map((s) => `https://push.invalid/${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "x"))}`),
          ).map(j),
          invalid: fc.oneof(
            bad("", "   ", 5, null, [], {}, `https://push.invalid/${times("a", 2049)}`, "https://push.invalid/a\u0000b"),
            badLate(
              "http://push.invalid/x",
              "javascript:alert(1)",
              "file:///etc/passwd",
              "/relative",
              "https://user:pass@push.invalid/x",
              "not a url",
              "ws://push.invalid/x",
            ),
          ),
        },
        p256dh: {
          required: true,
          valid: fc.uint8Array({ minLength: 65, maxLength: 65 }).map((b) => j(Buffer.from(b).toString("base64url"))),
          invalid: bad("", "x", key(64), key(66), Buffer.alloc(65, 0xfb).toString("base64"), "====", 5, null, key(65) + "\u0000"),
        },
        auth: {
          required: true,
          valid: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => j(Buffer.from(b).toString("base64url"))),
          invalid: bad("", "a", key(15), key(17), 5, null, [], "a\u0000"),
        },
      }),
    },
    [`DELETE ${N}/subscriptions`]: {
      body: () => ({
        endpoint: {
          required: true,
          valid: fc.oneof(fc.constantFrom("https://push.invalid/admin-1"), text(2048).filter((s) => nonBlank(s) && storable(s))).map(j),
          invalid: bad("", " ", 5, null, [], times("e", 2049), "a\u0000b"),
        },
      }),
    },
    [`GET ${N}/vapid-public-key`]: {},
    [`POST ${N}/test/in-app`]: { body: () => testNotification(() => [admin.id, user.id], ["type", "title", "targetUserId", "body"]) },
    // Never the admin: only the admin subscribes, and no push may leave the process.
    [`POST ${N}/test/push`]: { body: () => testNotification(() => [user.id], ["targetUserId"]) },
    [`GET ${N}/test/subscriptions`]: {},
    [`DELETE ${N}/test/subscriptions`]: {},
    [`PATCH ${N}/:id/read`]: { params: { id: notificationId } },
    [`DELETE ${N}/:id`]: { params: { id: notificationId } },
  };

  const routeKey = (route: RestRoute) => `${route.method} ${route.path}`;

  it("has a generator for every REST route and none for anything else", () => {
    expect(Object.keys(models).sort()).toEqual(restRoutes.map(routeKey).sort());
  });

  // ---- one generated request, and what must hold for it ----

  type Generated = { params: Record<string, Segment>; body: BodyCase | undefined; query: QueryCase };
  /** A route's models, built once the pools exist. */
  type Built = { route: RestRoute; body?: BodyModel; query?: Record<string, { valid: fc.Arbitrary<string>; invalid?: fc.Arbitrary<string> }>; known: Set<string> };

  function build(route: RestRoute, model: RouteModel): Built {
    const body = model.body?.();
    const query = model.query?.();
    const known = new Set(["(body)", ...Object.keys(model.params ?? {}), ...Object.keys(body ?? {}), ...Object.keys(query ?? {})]);
    return { route, body, query, known };
  }

  function requestArbitrary(built: Built, model: RouteModel): fc.Arbitrary<Generated> {
    const params = fc.record(Object.fromEntries(Object.entries(model.params ?? {}).map(([name, make]) => [name, make()]))) as fc.Arbitrary<
      Record<string, Segment>
    >;
    const body = built.route.method === "GET" ? fc.constant(undefined) : bodyCases(built.body);
    const query = queryCases(built.query ?? { x: { valid: text(20) } });
    return fc.record({ params, body, query });
  }

  /** What docs/api.md says a request must get, decided from the request alone. */
  type Expected =
    | { kind: "malformed-url" }
    | { kind: "status"; status: 400 | 413 }
    | { kind: "fields"; names: string[] }
    | { kind: "not-found"; message: string }
    | { kind: "free" };

  /** The kind of record a route's `:id` names, for `<Kind> <id> not found` (docs/api.md#errors). */
  const idKind = (route: RestRoute) => (route.path.startsWith(`${R}/cohorts/`) ? "Cohort" : route.path.startsWith(`${N}/:id`) ? "Notification" : null);

  function parseBody(payload: BodyCase | undefined): { kind: "none" } | { kind: "value"; value: unknown } | { kind: "string" } | { kind: "refused" } {
    if (payload?.text === undefined || payload.text === "") return { kind: "none" };
    const type = payload.contentType ?? "";
    if (type === "text/plain") return { kind: "string" };
    if (!type.startsWith("application/json")) return { kind: "refused" };
    try {
      const value = JSON.parse(payload.text) as unknown;
      // Fastify refuses a body with a __proto__ key anywhere (prototype poisoning).
      if (hasProtoKey(value)) return { kind: "refused" };
      return value === null ? { kind: "none" } : { kind: "value", value };
    } catch {
      return { kind: "refused" };
    }
  }

  /** Whether any object in the value has an own `__proto__` key; iterative, for 20,000-deep JSON. */
  function hasProtoKey(value: unknown): boolean {
    const stack = [value];
    while (stack.length) {
      const v = stack.pop();
      if (typeof v !== "object" || v === null) continue;
      if (!Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, "__proto__")) return true;
      stack.push(...Object.values(v));
    }
    return false;
  }

  function expectedFor(built: Built, gen: Generated): Expected {
    const { route } = built;
    if (Object.values(gen.params).some((s) => s.decoded === null)) return { kind: "malformed-url" };
    const payload = gen.body;
    if (payload?.text !== undefined && payload.text.length > 1_000_000) return { kind: "status", status: 413 };
    const parsed = parseBody(payload);
    if (parsed.kind === "refused") return { kind: "status", status: 400 };
    const isBodyRoute = route.input === "body";
    const isObject = parsed.kind === "none" || (parsed.kind === "value" && typeof parsed.value === "object" && !Array.isArray(parsed.value));
    if (isBodyRoute && !isObject) return { kind: "fields", names: ["(body)"] };

    const early: string[] = [];
    if (route.path.includes(":proId") && !validProIdValue(gen.params.proId!.decoded!)) early.push("proId");
    if (isBodyRoute && built.body) {
      const fields = parsed.kind === "value" ? (parsed.value as Record<string, unknown>) : {};
      const required = Object.entries(built.body).filter(([name, f]) => f.required && !(name in fields)).map(([name]) => name);
      early.push(...new Set([...(parsed.kind === "value" ? payload!.bad : []), ...required]));
    }
    if (route.input === "query") early.push(...gen.query.bad);
    if (early.length) return { kind: "fields", names: early };
    if (isBodyRoute && parsed.kind === "value" && payload!.late.length) return { kind: "fields", names: payload!.late };

    const kind = idKind(route);
    const id = gen.params.id;
    // docs/api.md#errors: an id that names nothing (a UUID or not) is 404 naming the kind and the id, never 400.
    if (kind && id && !id.known) return { kind: "not-found", message: `${kind} ${id.decoded} not found` };
    return { kind: "free" };
  }

  const shown = (s: string | undefined) => (s === undefined ? "-" : s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);

  type Answer = {
    status: number;
    data?: any;
    error?: { code: string; message: string; details?: { field: string; message: string }[] };
    /** The request and the answer, for assertion messages. */
    where: string;
  };

  /**
   * Sends one request as the admin and checks what holds for every answer: no 5xx; a 4xx is the envelope,
   * with a code that matches the status and details that name the route's fields; and it changed no row.
   */
  async function send(built: Built, url: string, payload?: { text?: string; contentType?: string }): Promise<Answer> {
    const { route } = built;
    const headers: Record<string, string> = { ...admin.headers };
    if (payload?.contentType) headers["content-type"] = payload.contentType;
    const before = await snapshotTables(t().db.db);
    const res = await t().app.inject({ method: route.method, url, headers, ...(payload?.text !== undefined ? { payload: payload.text } : {}) });
    const where = `${route.method} ${shown(url)} body=${shown(payload?.text)} [${payload?.contentType ?? "no content-type"}] → ${res.statusCode} ${shown(res.body)}`;

    expect(res.statusCode, where).toBeLessThan(500);
    const body = JSON.parse(res.body) as { success: boolean; data?: unknown; error?: Answer["error"] };
    if (res.statusCode < 400) {
      expect(body.success, where).toBe(true);
      return { status: res.statusCode, data: body.data, where };
    }
    expect(Object.keys(body).sort(), where).toEqual(["error", "success"]);
    expect(body.success, where).toBe(false);
    const error = body.error!;
    expect(STATUS_OF_CODE[error.code], where).toBe(res.statusCode);
    expect(typeof error.message === "string" && error.message.length > 0, where).toBe(true);
    if (error.details !== undefined) {
      expect(error.details.length, where).toBeGreaterThan(0);
      for (const detail of error.details) {
        expect(Object.keys(detail).sort(), where).toEqual(["field", "message"]);
        expect(built.known.has(detail.field.split(".")[0]!), `${where}: details name an unknown field ${detail.field}`).toBe(true);
        expect(typeof detail.message === "string" && detail.message.length > 0, where).toBe(true);
      }
    }
    expect(await snapshotTables(t().db.db), `${where}: a refused request changed rows`).toEqual(before);
    return { status: res.statusCode, error, where };
  }

  const urlOf = (route: RestRoute, params: Record<string, Segment>, query: string) =>
    route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!.raw) + (query ? `?${query}` : "");

  async function check(built: Built, gen: Generated) {
    const { route } = built;
    const expected = expectedFor(built, gen);
    const { status, data, error, where } = await send(built, urlOf(route, gen.params, gen.query.text), gen.body);

    // A large body may meet the body size limit before anything else: the 413 of docs/api.md#limits.
    if (status === 413 && (gen.body?.text?.length ?? 0) > 16_384) return;
    switch (expected.kind) {
      case "malformed-url":
        expect([400, 404], where).toContain(status);
        return;
      case "status":
        expect({ status, code: error?.code }, where).toEqual({
          status: expected.status,
          code: expected.status === 413 ? "PAYLOAD_TOO_LARGE" : "VALIDATION_ERROR",
        });
        return;
      case "fields": {
        expect({ status, code: error?.code }, where).toEqual({ status: 400, code: "VALIDATION_ERROR" });
        const named = (error?.details ?? []).map((d) => d.field.split(".")[0]);
        for (const name of expected.names) expect(named, `${where}: details must name ${name}`).toContain(name);
        return;
      }
      case "not-found":
        expect({ status, code: error?.code, message: error?.message }, where).toEqual({
          status: 404,
          code: "NOT_FOUND",
          message: expected.message,
        });
        return;
      case "free":
        if (!error) return routeChecks(route, gen, data, where);
        if (error.code === "VALIDATION_ERROR") {
          if (route.path.endsWith("/cohorts/:id/activate")) expect(error.message, where).toMatch(/^Activation blocked/);
          // Anything else refused about a well-formed request is about its fields, and must say which.
          else expect(error.details?.length ?? 0, `${where}: a validation error must name the fields in details`).toBeGreaterThan(0);
        }
        if (idKind(route) === "Notification" && pools.othersNotificationIds.includes(gen.params.id!.decoded!.toLowerCase())) {
          expect({ status, message: error.message }, where).toEqual({ status: 403, message: "Access denied" });
        }
    }
  }

  const validProIdValue = (s: string) => codePoints(s) <= 200 && nonBlank(s) && storable(s);

  /** What a success must show: computed fields not taken from the caller, the caller's own records only. */
  function routeChecks(route: RestRoute, gen: Generated, data: any, where: string) {
    const key = routeKey(route);
    if (key === `POST ${R}/cohorts`) {
      expect(data, where).toMatchObject({ status: "pending", activatedAt: null, rollbackAt: null, rollbackReason: null });
    } else if (key === `POST ${R}/cohorts/:id/check-gates`) {
      const passes = (data.responseRate ?? 0) >= 0.6 && (data.comparisonsDone ?? 0) >= 50 && data.logLive && data.legalSignoff;
      expect({ allGatesMet: data.allGatesMet, blocked: data.blockedBy !== null }, where).toEqual({ allGatesMet: passes, blocked: !passes });
      expect(data.cohortId, where).toBe(gen.params.id!.decoded!.toLowerCase());
    } else if (key === `GET ${R}/:proId`) {
      expect(data.proId, where).toBe(gen.params.proId!.decoded);
    } else if (key === `GET ${N}`) {
      expect(Number.isInteger(data.page) && data.page >= 1, where).toBe(true);
      expect(data.notifications.length, where).toBeLessThanOrEqual(100);
      for (const n of data.notifications) expect(n.userId, `${where}: someone else's notification listed`).toBe(admin.id);
    } else if (key === `POST ${N}/subscriptions`) {
      expect(data.subscription, where).toMatchObject({ userId: admin.id, isActive: true });
    } else if (key === `DELETE ${N}/bulk`) {
      expect(Number.isInteger(data.deleted) && data.deleted >= 0, where).toBe(true);
    }
  }

  const built = (key: string) => {
    const route = restRoutes.find((r) => routeKey(r) === key)!;
    return build(route, models[key]!);
  };

  it("limits: each bound accepted, one past it refused with details naming the field", async () => {
    const id = pools.cohortIds[1]!;
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
      { key: `POST ${N}/test/in-app`, body: { ...inApp, type: times("t", 100), body: times("b", 2000), url: times("u", 2048) }, status: 200 },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, type: times("t", 101) }, field: "type" },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, title: times("t", 200) }, status: 200 },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, title: times("t", 201) }, field: "title" },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, body: times("b", 2001) }, field: "body" },
      { key: `POST ${N}/test/in-app`, body: { ...inApp, url: times("u", 2049) }, field: "url" },
      { key: `DELETE ${N}/subscriptions`, body: { endpoint: times("e", 2048) }, status: 200 },
      { key: `DELETE ${N}/subscriptions`, body: { endpoint: times("e", 2049) }, field: "endpoint" },
      // PostgreSQL text cannot hold NUL: refused as a field, never stored or answered with a 500.
      { key: `POST ${R}/cohorts`, body: { cohortNumber: 5, proIds: ["a\u0000b"] }, field: "proIds" },
      { key: `POST ${R}/cohorts/:id/rollback`, body: { reason: "a\u0000b" }, field: "reason" },
      { key: `GET ${R}/:proId`, path: "a%00b", field: "proId" },
      { key: `POST ${R}/:proId/activate`, path: "%00", field: "proId" },
    ];
    for (const c of cases) {
      const b = built(c.key);
      const url = b.route.path.replace(":id", id).replace(":proId", c.path ?? "") + (c.query ? `?${c.query}` : "");
      const body = c.body && "targetUserId" in c.body ? { ...c.body, targetUserId: user.id } : c.body;
      const answer = await send(b, url, body && { text: j(body), contentType: "application/json" });
      if (c.field) {
        expect({ status: answer.status, code: answer.error?.code }, answer.where).toEqual({ status: 400, code: "VALIDATION_ERROR" });
        expect(answer.error!.details!.map((d) => d.field.split(".")[0]), answer.where).toContain(c.field);
      } else {
        expect(answer.status, answer.where).toBe(c.status);
      }
    }
  });

  it("page and limit: odd values are normalised (page >= 1, limit 1..100, default 30), never refused", async () => {
    const db = t().db.db;
    const extra = await db
      .insert(notifications)
      .values(Array.from({ length: 101 }, (_, i) => ({ userId: admin.id, eventType: "limit.test", category: "system", title: `Row ${i}` })))
      .returning({ id: notifications.id });
    try {
      const list = built(`GET ${N}`);
      const { data: all } = await send(list, `${N}?limit=100`);
      const total = all.total as number;
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
        const { data, where } = await send(list, `${N}?${query}`);
        const length = Math.max(0, Math.min(limit, total - (page - 1) * limit));
        expect({ page: data.page, length: data.notifications.length, has_more: data.has_more }, where).toEqual({
          page,
          length,
          has_more: page * limit < total,
        });
      }
    } finally {
      await db.delete(notifications).where(inArray(notifications.id, extra.map((r) => r.id)));
    }
  });

  for (const route of restRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      const model = models[routeKey(route)];
      expect(model, `no generator for ${routeKey(route)}`).toBeDefined();
      const routeModels = build(route, model!);
      await fc.assert(
        fc.asyncProperty(requestArbitrary(routeModels, model!), (gen) => check(routeModels, gen)),
        { numRuns: NUM_RUNS },
      );
      // A run takes a second or two; shrinking a failure, with the whole suite running beside it, far longer.
    }, 120_000);
  }

  it("left the other user's notifications untouched", async () => {
    const rows = await t().db.db.select().from(notifications).where(inArray(notifications.id, pools.othersNotificationIds));
    expect(rows.map((r) => ({ readAt: r.readAt, deletedAt: r.deletedAt }))).toEqual(
      pools.othersNotificationIds.map(() => ({ readAt: null, deletedAt: null })),
    );
    expect(rows.every((r) => r.userId === user.id)).toBe(true);
  });
});

// Deterministic cases of what the properties above found. Each states the answer docs/api.md promises.
describe("found by these properties", () => {
  const t = useTestApp({ push: { vapid } });
  let admin: TestUser;
  beforeAll(async () => {
    admin = await t().signUp({ admin: true });
  });

  async function call(method: "GET" | "POST" | "DELETE", url: string, payload?: object) {
    const before = await snapshotTables(t().db.db);
    const res = await t().app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });
    const where = `${method} ${url} ${payload ? j(payload) : ""} → ${res.statusCode} ${res.body}`;
    const body = res.json() as { data?: any; error?: { code: string; details?: { field: string }[] } };
    if (res.statusCode >= 400) expect(await snapshotTables(t().db.db), `${where}: a refused request changed rows`).toEqual(before);
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
      const created = await call("POST", `${R}/cohorts`, { cohortNumber: uniqueCohortNumber(), proIds });
      acceptedOrNamed(created, "proIds");
      if (created.status >= 300) continue;
      const id = created.body.data.id as string;
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
    const cohort = await call("POST", `${R}/cohorts`, { cohortNumber: uniqueCohortNumber(), proIds: ["p"] });
    acceptedOrNamed(await call("POST", `${R}/cohorts`, { cohortNumber: uniqueCohortNumber(), proIds: ["\u00e9\udc00"] }), "proIds");
    acceptedOrNamed(await call("POST", `${R}/cohorts/${cohort.body.data.id}/rollback`, { reason: "a\udc00\udc00b" }), "reason");
    acceptedOrNamed(await call("DELETE", `${N}/subscriptions`, { endpoint: "a\udc00\udc00b" }), "endpoint");
    const title = "\u00e9\udc00xyz";
    const created = await call("POST", `${N}/test/in-app`, { type: "system.x", title, targetUserId: admin.id });
    acceptedOrNamed(created, "title");
    if (created.status < 300) expect.soft(created.body.data.notification.title, created.where).toBe(stored(title));
  });

  it("NUL in a notification field is a 400 naming the field (was a 400 without details)", async () => {
    const nul = "a\u0000b";
    const inApp = { type: "system.x", title: "t", targetUserId: admin.id };
    const keys = { p256dh: Buffer.alloc(65, 4).toString("base64url"), auth: Buffer.alloc(16, 4).toString("base64url") };
    const cases: [method: "GET" | "POST" | "DELETE", url: string, payload: object | undefined, field: string][] = [
      ["POST", `${N}/test/in-app`, { ...inApp, type: nul }, "type"],
      ["POST", `${N}/test/in-app`, { ...inApp, title: nul }, "title"],
      ["POST", `${N}/test/in-app`, { ...inApp, body: nul }, "body"],
      ["POST", `${N}/test/in-app`, { ...inApp, targetUserId: nul }, "targetUserId"],
      ["POST", `${N}/test/push`, { ...inApp, targetUserId: nul }, "targetUserId"],
      ["POST", `${N}/subscriptions`, { endpoint: `https://push.invalid/${nul}`, ...keys }, "endpoint"],
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

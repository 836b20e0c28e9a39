// An audit event in words (console/src/auditChange.ts): every action the service records reads as words,
// and its before/after as a few lines of what changed, shaped as docs/api.md#audit-trail records them.
import { describe, expect, test } from "vitest";
import {
  ACTION_WORDS,
  actionWords,
  appliedByRequest,
  cohortIdsNamed,
  cohortNumbersIn,
  describeChange,
  describeDetails,
  targetName,
} from "../../console/src/auditChange.js";
import { type AuditAction, auditActions } from "../../db/schema/audit-actions.js";

const COHORT = "0b8f7f0e-5d1c-4e8a-9a55-3c1d2e4f6a70";
const OTHER_COHORT = "7d2c1b3a-0000-4000-8000-000000000001";
const REQUEST = "5e0c9d1a-2b3c-4d5e-8f60-718293a4b5c6";
const T1 = "2026-11-24T10:00:00.000Z";
const T2 = "2026-11-25T08:30:00.000Z";

/** Instants as `24 Nov 10:00` whatever the machine's locale and zone, so the lines can be compared. */
const options = {
  formatTime: (iso: string) => `<${iso.slice(0, 16).replace("T", " ")}>`,
  cohortNumber: (id: string) => (id === OTHER_COHORT ? 3 : undefined),
};

const cohort = (over: Record<string, unknown> = {}) => ({
  id: COHORT,
  cohortNumber: 7,
  proIds: ["pro-1", "pro-2", "pro-3", "pro-4", "pro-5"],
  status: "pending",
  activatedAt: null,
  rollbackAt: null,
  rollbackReason: null,
  createdAt: T1,
  ...over,
});
const user = (over: Record<string, unknown> = {}) => ({
  id: "u-1",
  email: "olivia@example.com",
  name: "Olivia",
  role: "user",
  banned: false,
  banReason: null,
  banExpires: null,
  ...over,
});
const apiKey = (over: Record<string, unknown> = {}) => ({
  id: "k-1",
  name: "search service",
  scopes: ["flags:read", "notifications:write"],
  prefix: "rk_abcdefgh",
  createdAt: T1,
  createdBy: { id: "u-1", email: "olivia@example.com" },
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  ...over,
});
const request = (over: Record<string, unknown> = {}) => ({
  id: REQUEST,
  cohortId: COHORT,
  cohortNumber: 7,
  action: "activate",
  reason: "gates passed",
  status: "pending",
  requestedBy: { id: "u-1", email: "olivia@example.com" },
  requestedAt: T1,
  preview: { turnOn: ["pro-1", "pro-2"], turnOff: [], unchanged: ["pro-3"], unknownPros: [], alsoInOtherActiveCohorts: [] },
  decidedBy: null,
  decidedAt: null,
  comment: null,
  appliedAt: null,
  ...over,
});

/** One event of every action the service records: its before, after, and the lines they read as. */
const EVENTS: Record<AuditAction, [before: unknown, after: unknown, lines: string[]]> = {
  "cohort.create": [null, cohort(), ["created with 5 pros (pro-1, pro-2, pro-3, …)"]],
  "cohort.check_gates": [
    null,
    {
      id: "g-1",
      cohortId: COHORT,
      responseRate: 0.72,
      comparisonsDone: 64,
      logLive: true,
      legalSignoff: true,
      allGatesMet: true,
      blockedBy: null,
      checkedAt: T1,
    },
    ["response rate 0.72, comparisons 64, communication log live yes, legal sign-off yes → all gates met"],
  ],
  "cohort.activate": [
    cohort(),
    cohort({ status: "active", activatedAt: T1 }),
    ["status: pending → active", "activated: — → <2026-11-24 10:00>"],
  ],
  "cohort.rollback": [
    cohort({ status: "active", activatedAt: T1 }),
    cohort({ status: "rolled_back", activatedAt: T1, rollbackAt: T2, rollbackReason: "complaints from pros" }),
    ["status: active → rolled back", "rolled back: — → <2026-11-25 08:30>"],
  ],
  "pro.activate": [null, { proId: "pro-1", restrictionActive: true, cohortId: null, updatedAt: T1 }, ["restriction: off → on"]],
  "pro.rollback": [
    { proId: "pro-1", restrictionActive: true, cohortId: OTHER_COHORT, updatedAt: T1 },
    { proId: "pro-1", restrictionActive: false, cohortId: null, updatedAt: T2 },
    ["restriction: on → off", "was set by cohort 3, now per pro"],
  ],
  "notification.test_in_app": [
    null,
    {
      id: "n-1",
      userId: "u-1",
      eventType: "system.test",
      category: "system",
      title: "Hello",
      body: null,
      dateCreated: T1,
      readAt: null,
      data: null,
    },
    ['in-app notification "Hello" (type system.test)'],
  ],
  "notification.test_push": [null, { sent: 2, failed: 1, deactivated: 0, results: [] }, ["2 sent, 1 failed"]],
  "subscriptions.clear": [
    { activeSubscriptionIds: ["s-1", "s-2", "s-3"] },
    { activeSubscriptionIds: [] },
    ["3 active push subscriptions cleared"],
  ],
  "admin.bootstrap": [
    null,
    { id: "u-1", email: "root@example.com", name: "Root", role: "admin" },
    ["first admin: root@example.com (Root)"],
  ],
  "user.create": [null, user(), ["olivia@example.com (Olivia), role user"]],
  "user.update": [user(), user({ name: "Olivia O." }), ["name: Olivia → Olivia O."]],
  "user.set_role": [user(), user({ role: "admin" }), ["role: user → admin"]],
  "user.ban": [
    user(),
    user({ banned: true, banReason: "spam", banExpires: T2 }),
    ["banned: no → yes", "ban reason: — → spam", "ban expires: — → <2026-11-25 08:30>"],
  ],
  "user.unban": [user({ banned: true, banReason: "spam" }), user(), ["banned: yes → no", "ban reason: spam → —"]],
  "user.set_password": [null, null, ["password set (never recorded)"]],
  "user.revoke_sessions": [{ sessionIds: ["a", "b"] }, null, ["2 sessions revoked"]],
  "user.remove": [user(), null, ["removed olivia@example.com (Olivia)"]],
  "user.impersonate": [null, { sessionId: "s-9", expiresAt: T2 }, ["impersonation session until <2026-11-25 08:30>"]],
  "user.stop_impersonating": [{ sessionId: "s-9" }, null, ["impersonation session ended"]],
  "apikey.create": [null, apiKey(), ['"search service", scopes flags:read, notifications:write', "expires never"]],
  "apikey.revoke": [apiKey(), apiKey({ revokedAt: T2 }), ['"search service" revoked <2026-11-25 08:30>']],
  "change_request.create": [null, request(), ["asks to activate cohort 7", "impact then: 2 on, 0 off, 1 unchanged"]],
  "change_request.approve": [request(), request({ status: "applied" }), ["activate cohort 7", "status: pending → applied"]],
  "change_request.reject": [request(), request({ status: "rejected" }), ["activate cohort 7", "status: pending → rejected"]],
  "change_request.cancel": [
    request({ action: "rollback" }),
    request({ action: "rollback", status: "cancelled" }),
    ["rollback cohort 7", "status: pending → cancelled"],
  ],
};

describe("an audit event in words", () => {
  test("the table covers every action the service records", () => {
    expect(Object.keys(EVENTS).sort()).toEqual([...auditActions].sort());
  });

  test.each(auditActions)("%s has words of its own, not its code", (action) => {
    expect(ACTION_WORDS[action]).toMatch(/^[A-Z][\w']* [a-z]/);
    expect(ACTION_WORDS[action]).not.toContain(action);
    expect(actionWords(action)).toBe(ACTION_WORDS[action]);
  });

  test.each(auditActions)("%s: what changed", (action) => {
    const [before, after, lines] = EVENTS[action];
    expect(describeChange({ action, before, after }, options)).toEqual(lines);
  });

  test("a blocked gate check says why in words", () => {
    const after = {
      responseRate: null,
      comparisonsDone: 10,
      logLive: true,
      legalSignoff: false,
      allGatesMet: false,
      blockedBy: "legal_signoff missing",
    };
    expect(describeChange({ action: "cohort.check_gates", before: null, after }, options)).toEqual([
      "response rate —, comparisons 10, communication log live yes, legal sign-off no → blocked: legal has not signed the rollout off.",
    ]);
  });

  test("a test push to a user without subscriptions, and one whose subscriptions are gone", () => {
    const push = (after: unknown) => describeChange({ action: "notification.test_push", before: null, after }, options);
    expect(push({ sent: 0, failed: 0, deactivated: 0, results: [] })).toEqual(["0 sent, 0 failed: no active push subscription"]);
    expect(push({ sent: 0, failed: 1, deactivated: 1, results: [] })).toEqual(["0 sent, 1 failed; 1 subscription gone, now inactive"]);
  });

  test("an action this console does not know: its code, and each changed top-level field shortened", () => {
    const long = "x".repeat(100);
    const lines = describeChange(
      {
        action: "thing.renamed",
        before: { id: "1", name: "old", size: 1, tags: ["a"], same: true },
        after: { id: "1", name: long, size: 2, tags: ["a", "b"], same: true },
      },
      options,
    );
    expect(actionWords("thing.renamed")).toBe("thing.renamed");
    expect(lines).toEqual([`name: old → ${"x".repeat(47)}…`, "size: 1 → 2", "tags: 1 item (a) → 2 items (a, b)"]);
  });

  test("nothing changed reads as no line", () => {
    expect(describeChange({ action: "thing.touched", before: { a: 1 }, after: { a: 1 } }, options)).toEqual([]);
  });
});

describe("what a change came with", () => {
  test("an approval names the change request and who asked for it", () => {
    const details = { changeRequestId: REQUEST, requestedBy: { id: "u-2", email: "x@y.test" } };
    expect(describeDetails(details)).toEqual(["applied by approving change request 5e0c9d1a, requested by x@y.test"]);
    expect(appliedByRequest(details)).toBe(REQUEST);
  });

  test("a rollback that bypassed approval says so", () => {
    expect(describeDetails({ approvalBypassed: true })).toEqual(["made without a change request while approvals are required"]);
    expect(appliedByRequest({ approvalBypassed: true })).toBeUndefined();
  });

  test("none, and what this console does not know, as field: value", () => {
    expect(describeDetails(null)).toEqual([]);
    expect(describeDetails({ batchSize: 3 })).toEqual(["batch size: 3"]);
  });
});

describe("naming cohorts and targets from the events themselves", () => {
  const event = (action: string, target: { type: string; id: string }, before: unknown, after: unknown) => ({
    action,
    target,
    before,
    after,
  });
  const events = [
    event("cohort.create", { type: "cohort", id: COHORT }, null, cohort()),
    event("cohort.check_gates", { type: "cohort", id: OTHER_COHORT }, null, { cohortId: OTHER_COHORT, allGatesMet: true }),
    event("change_request.create", { type: "change_request", id: REQUEST }, null, request({ cohortId: "c-9", cohortNumber: 9 })),
    event("pro.activate", { type: "pro", id: "pro-1" }, { proId: "pro-1", cohortId: "c-4" }, { proId: "pro-1", cohortId: null }),
  ];

  test("a cohort's number from its own record or a change request's", () => {
    expect(cohortNumbersIn(events)).toEqual(
      new Map([
        [COHORT, 7],
        ["c-9", 9],
      ]),
    );
  });

  test("every cohort an event names, numbered or not", () => {
    expect(cohortIdsNamed(events).sort()).toEqual([COHORT, OTHER_COHORT, "c-9", "c-4"].sort());
  });

  test("an API key by its name, a user by their email", () => {
    expect(targetName(event("apikey.create", { type: "apikey", id: "k-1" }, null, apiKey()))).toBe("search service");
    expect(targetName(event("user.remove", { type: "user", id: "u-1" }, user(), null))).toBe("olivia@example.com");
    // A test notification's record is the notification, not the user.
    expect(targetName(event("notification.test_in_app", { type: "user", id: "u-1" }, null, { id: "n-1", title: "Hi" }))).toBeUndefined();
  });
});

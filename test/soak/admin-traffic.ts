// The admin's traffic: cohorts (create, gate checks, activate, rollback), per-pro changes, test notifications, error paths.
import { randomUUID } from "node:crypto";
import { type Actor, control, rng } from "./actors.js";
import { data, envelope, errorCode, send } from "./http.js";
import { MAX_COHORTS, MAX_OPS_PER_ACTOR, PRO_COUNT, proIds, TEST_PUSH_EVERY_MS } from "./settings.js";

const EVENT_TYPES = ["message.received", "lead.created", "review.posted", "invoice.paid", "security.login", "weekly_digest"];

type CohortModel = { id: string; lastCheckPassed: boolean | null };

export async function adminLoop(admin: Actor, users: Actor[], seed: number, deadline: number) {
  const r = rng(seed);
  const token = admin.token;
  const cohorts: CohortModel[] = [];
  let lastPush = 0;
  let nextCohortNumber = 1;
  const R = "/api/admin/restriction";
  for (let i = 0; i < MAX_OPS_PER_ACTOR && Date.now() < deadline && !control.stopping; i++) {
    const roll = r.int(100);
    const cohort = cohorts.length ? r.pick(cohorts) : null;
    if (roll < 8 && cohorts.length < MAX_COHORTS) {
      const size = 1 + r.int(60);
      const start = r.int(PRO_COUNT - size);
      const created = data<{ id: string }>(
        await send("admin: create cohort", {
          method: "POST",
          path: `${R}/cohorts`,
          body: { cohortNumber: nextCohortNumber++, proIds: proIds.slice(start, start + size) },
          token,
          expect: 201,
          check: envelope,
        }),
      );
      if (created) cohorts.push({ id: created.id, lastCheckPassed: null });
    } else if (roll < 18 && cohort) {
      const pass = r.next() < 0.7;
      const body = pass ? { responseRate: 0.8, comparisonsDone: 60, legalSignoff: true } : { responseRate: 0.3, comparisonsDone: 10 };
      const check = data<{ allGatesMet: boolean }>(
        await send("admin: check gates", {
          method: "POST",
          path: `${R}/cohorts/${cohort.id}/check-gates`,
          body,
          token,
          expect: 201,
          check: envelope,
        }),
      );
      if (check) cohort.lastCheckPassed = check.allGatesMet;
    } else if (roll < 30 && cohort) {
      // The admin loop is the only writer of gate checks, so it knows what activation must answer.
      if (cohort.lastCheckPassed) {
        await send("admin: activate cohort", {
          method: "POST",
          path: `${R}/cohorts/${cohort.id}/activate`,
          token,
          expect: 200,
          check: envelope,
        });
      } else {
        await send("admin: activate blocked (400)", {
          method: "POST",
          path: `${R}/cohorts/${cohort.id}/activate`,
          token,
          expect: 400,
          check: errorCode("VALIDATION_ERROR"),
        });
      }
    } else if (roll < 38 && cohort) {
      await send("admin: rollback cohort", {
        method: "POST",
        path: `${R}/cohorts/${cohort.id}/rollback`,
        body: r.next() < 0.5 ? { reason: "soak rollback" } : {},
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 44) {
      await send("admin: list cohorts", { method: "GET", path: `${R}/cohorts`, token, expect: 200, check: envelope });
    } else if (roll < 48) {
      await send("admin: tRPC listCohorts", { method: "GET", path: "/trpc/restriction.listCohorts", token, expect: 200 });
    } else if (roll < 54) {
      await send("admin: get pro", { method: "GET", path: `${R}/${r.pick(proIds)}`, token, expect: 200, check: envelope });
    } else if (roll < 58) {
      await send("admin: list active pros", { method: "GET", path: R, token, expect: 200, check: envelope });
    } else if (roll < 64) {
      const action = r.next() < 0.5 ? "activate" : "rollback";
      await send(`admin: pro ${action}`, { method: "POST", path: `${R}/${r.pick(proIds)}/${action}`, token, expect: 200, check: envelope });
    } else if (roll < 86) {
      const target = r.pick(users);
      const type = r.pick(EVENT_TYPES);
      await send("admin: in-app notification", {
        method: "POST",
        path: "/api/notifications/test/in-app",
        body: {
          type,
          title: `Soak ${type} ${i}`,
          body: r.next() < 0.5 ? "body text" : undefined,
          url: r.next() < 0.3 ? "https://app.example.test/x" : undefined,
          targetUserId: target.id,
        },
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 90 && Date.now() - lastPush >= TEST_PUSH_EVERY_MS) {
      lastPush = Date.now();
      await send("admin: test push", {
        method: "POST",
        path: "/api/notifications/test/push",
        body: { type: "system.soak", title: "Soak push", targetUserId: r.pick(users).id },
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 94) {
      await send("admin: all subscriptions", {
        method: "GET",
        path: "/api/notifications/test/subscriptions",
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 97) {
      await send("admin: unknown cohort (404)", {
        method: "POST",
        path: `${R}/cohorts/${randomUUID()}/activate`,
        token,
        expect: 404,
        check: errorCode("NOT_FOUND"),
      });
    } else {
      await send("admin: bad cohort (400)", {
        method: "POST",
        path: `${R}/cohorts`,
        body: { cohortNumber: -1, proIds: [] },
        token,
        expect: 400,
        check: errorCode("VALIDATION_ERROR"),
      });
    }
  }
}

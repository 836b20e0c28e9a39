// The admins under APPROVALS=required: A asks and B approves a pro's activation (never A: the checker proves
// no gated change applied without a second person), A rolls it back at once with a reason; cohorts go the
// same way. Each watched pro has this one writer, one change at a time, so every read can be judged.
import { call, dataOf, instanceCount } from "./client.js";
import { newKey, sendRetrying } from "./send.js";
import { actorRng, COHORT_PROS, pause, running, WATCHED_PROS, type World } from "./world.js";

const R = "/api/admin/restriction";

export async function proWriterLoop(w: World) {
  const r = actorRng("pro-writer");
  // What this writer believes each watched pro is: null when an answer was lost and it must read first.
  const model = new Map<string, boolean | null>(WATCHED_PROS.map((p) => [p, false]));
  while (running()) {
    const pro = r.pick(WATCHED_PROS);
    let value = model.get(pro)!;
    if (value === null) {
      const read = await call({
        actor: "admin-a",
        op: "admin: get pro",
        inst: r.int(instanceCount()),
        method: "GET",
        path: `${R}/${pro}`,
        session: w.adminA.session,
        meta: { pro, read: "pro" },
        metaFrom: (_, b) => ({ value: (b as { data?: { restrictionActive?: boolean } } | undefined)?.data?.restrictionActive }),
      });
      const status = dataOf<{ restrictionActive: boolean }>(read);
      if (!status) continue;
      value = status.restrictionActive;
      model.set(pro, value);
    }
    if (value) {
      const a = await sendRetrying(r, {
        actor: "admin-a",
        op: "admin: pro rollback",
        method: "POST",
        path: `${R}/${pro}/rollback`,
        body: { reason: "soak: emergency rollback" },
        session: w.adminA.session,
        idempotencyKey: newKey(),
        meta: { pro, value: false, write: "pro" },
      });
      model.set(pro, a.outcome === "ok" ? false : a.outcome === "fail" ? value : null);
    } else {
      if (r.next() < 0.1) {
        // Under APPROVALS=required a direct activation is refused.
        await call({
          actor: "admin-a",
          op: "admin: direct pro activate",
          inst: r.int(instanceCount()),
          method: "POST",
          path: `${R}/${pro}/activate`,
          session: w.adminA.session,
          meta: { pro, gated: "direct" },
        });
      }
      const asked = await sendRetrying(r, {
        actor: "admin-a",
        op: "admin: pro change request",
        method: "POST",
        path: `${R}/${pro}/change-requests`,
        body: { action: "activate", reason: "soak: gates passed" },
        session: w.adminA.session,
        idempotencyKey: newKey(),
        keepBody: true,
        meta: { pro },
      });
      const request = dataOf<{ changeRequest: { id: string } }>(asked)?.changeRequest;
      if (!request) {
        model.set(pro, null);
        await pause(100);
        continue;
      }
      if (r.next() < 0.15) {
        await call({
          actor: "admin-a",
          op: "admin: approve own request",
          inst: r.int(instanceCount()),
          method: "POST",
          path: `${R}/change-requests/${request.id}/approve`,
          body: {},
          session: w.adminA.session,
          meta: { pro, changeRequest: request.id, gated: "own" },
        });
      }
      const approved = await sendRetrying(r, {
        actor: "admin-b",
        op: "admin: approve",
        method: "POST",
        path: `${R}/change-requests/${request.id}/approve`,
        body: { comment: "soak: checked" },
        session: w.adminB.session,
        idempotencyKey: newKey(),
        meta: { pro, value: true, write: "pro", changeRequest: request.id },
      });
      if (approved.outcome === "ok") model.set(pro, true);
      else {
        model.set(pro, null);
        // Nothing pending left behind: the next request for this pro would be refused.
        await sendRetrying(r, {
          actor: "admin-a",
          op: "admin: cancel request",
          method: "POST",
          path: `${R}/change-requests/${request.id}/cancel`,
          body: {},
          session: w.adminA.session,
          idempotencyKey: newKey(),
        });
      }
    }
    await pause(150 + r.int(250));
  }
}

export async function cohortLoop(w: World) {
  const r = actorRng("cohorts");
  let cohortNumber = 1;
  while (running()) {
    const size = 5 + r.int(30);
    const start = r.int(COHORT_PROS.length - size);
    const made = await sendRetrying(r, {
      actor: "admin-a",
      op: "admin: create cohort",
      method: "POST",
      path: `${R}/cohorts`,
      body: { cohortNumber: cohortNumber++, proIds: COHORT_PROS.slice(start, start + size) },
      session: w.adminA.session,
      idempotencyKey: newKey(),
      keepBody: (b) => ({ id: (b as { data?: { id?: string } }).data?.id }),
    });
    const cohort = dataOf<{ id: string }>(made)?.id;
    if (!cohort) continue;
    await sendRetrying(r, {
      actor: "admin-a",
      op: "admin: check gates",
      method: "POST",
      path: `${R}/cohorts/${cohort}/check-gates`,
      body: { responseRate: 0.8, comparisonsDone: 60, legalSignoff: true },
      session: w.adminA.session,
      idempotencyKey: newKey(),
    });
    await call({
      actor: "admin-a",
      op: "admin: direct cohort activate",
      inst: r.int(instanceCount()),
      method: "POST",
      path: `${R}/cohorts/${cohort}/activate`,
      session: w.adminA.session,
      meta: { cohort, gated: "direct" },
    });
    const asked = await sendRetrying(r, {
      actor: "admin-a",
      op: "admin: cohort change request",
      method: "POST",
      path: `${R}/cohorts/${cohort}/change-requests`,
      body: { action: "activate", reason: "soak: gates passed" },
      session: w.adminA.session,
      idempotencyKey: newKey(),
      keepBody: true,
    });
    const request = dataOf<{ changeRequest: { id: string } }>(asked)?.changeRequest;
    if (request) {
      await sendRetrying(r, {
        actor: "admin-b",
        op: "admin: approve cohort",
        method: "POST",
        path: `${R}/change-requests/${request.id}/approve`,
        body: {},
        session: w.adminB.session,
        idempotencyKey: newKey(),
        meta: { cohort, changeRequest: request.id },
      });
    }
    await pause(1000 + r.int(2000));
    if (!running()) break;
    await sendRetrying(r, {
      actor: "admin-a",
      op: "admin: cohort rollback",
      method: "POST",
      path: `${R}/cohorts/${cohort}/rollback`,
      body: { reason: "soak: emergency rollback" },
      session: w.adminA.session,
      idempotencyKey: newKey(),
    });
    await pause(1000 + r.int(2000));
  }
}

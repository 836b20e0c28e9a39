// The write-ceiling's checks (bench/write-ceiling.ts): each stream against the database with every change's latency,
// and one cohort activated through the product's procedure while the bench listens for its NOTIFYs.
import { createDb } from "../db/client.js";
import { createContextInner } from "../server/context.js";
import { FLAGS_CHANNEL } from "../server/ofrep/changes.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import { summarize } from "./inprocess.js";
import type { StreamReport } from "./stream-clients.js";
import { ADMIN, type CohortCheck, now, sleep } from "./write-ceiling-setup.js";

/** Each user's stream against the database, and every answered change's latency to its stream. */
export function compare(
  reports: StreamReport[],
  before: Map<string, number>,
  after: Map<string, number>,
  answers: { u: number; id: string; at: number }[],
  rankOf: Map<string, number>,
  userIds: string[],
) {
  const eventsOf = new Map(reports.map((s) => [s.follows, s.events]));
  let usersChanged = 0;
  let usersWithEvents = 0;
  let usersChangedWithoutEvent = 0;
  let events = 0;
  let wrongFinal = 0;
  const wrongSamples: string[] = [];
  for (const user of userIds) {
    const list = eventsOf.get(user) ?? [];
    const k = before.get(user) ?? 0;
    const final = after.get(user) ?? 0;
    events += list.length;
    if (list.length) usersWithEvents++;
    if (k !== final) {
      usersChanged++;
      if (!list.length) usersChangedWithoutEvent++;
    }
    const last = list.length ? Number(list[list.length - 1]![0]) : k;
    if (last !== final || !eventsOf.has(user)) {
      wrongFinal++;
      if (wrongSamples.length < 10) wrongSamples.push(`${user}: stream ${last}, database ${final} (was ${k}, ${list.length} events)`);
    }
  }
  const latencies: number[] = [];
  let unmatched = 0;
  for (const a of answers) {
    const user = userIds[a.u]!;
    const rank = rankOf.get(a.id);
    if (rank === undefined) continue; // not marked in this run (cannot happen for an answered request)
    const count = Math.max(0, (before.get(user) ?? 0) - rank);
    const first = (eventsOf.get(user) ?? []).find(([value]) => Number(value) <= count);
    if (!first) unmatched++;
    else latencies.push(Math.max(0, first[1] - a.at));
  }
  return {
    usersChanged,
    usersWithEvents,
    usersChangedWithoutEvent,
    events,
    wrongFinal,
    wrongSamples,
    latency: summarize(latencies),
    unmatched,
  };
}

/** The product's restriction.activateCohort of one cohort: the NOTIFYs the bench hears on restriction_flags for it. */
export async function activateCohort(
  databaseUrl: string,
  cohortId: string,
  pros: number,
  flags: { at: number; payload: string }[],
  log: (message: string) => void,
): Promise<CohortCheck> {
  const handle = await createDb({ databaseUrl, maxConnections: 2 });
  try {
    const caller = createCaller(createContextInner({ db: handle.db, push: createPushService({ vapid: null }) }, { user: ADMIN }));
    const heardBefore = flags.length;
    const sent = now();
    const result = await caller.restriction.activateCohort({ id: cohortId });
    const answered = now();
    if (result.status !== "active") throw new Error(`activation of cohort ${cohortId} left it ${result.status}`);
    await sleep(2_000);
    const heardNow = flags.slice(heardBefore);
    const check: CohortCheck = {
      pros,
      notifies: heardNow.length,
      payloads: heardNow.map((h) => h.payload),
      activationMs: answered - sent,
      heardAfterMs: heardNow.length ? heardNow[0]!.at - sent : Number.NaN,
    };
    log(`write-ceiling: cohort of ${pros} pros activated: ${check.notifies} NOTIFY on ${FLAGS_CHANNEL} (${check.payloads.join(", ")})`);
    return check;
  } finally {
    await handle.close();
  }
}

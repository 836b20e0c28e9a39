// The write-ceiling's report (bench/write-ceiling.ts): its table and its verdicts.
import type { Verdict } from "./report.js";
import { type AnnounceMode, type Delivery, WHAT, WIDE_WAIT_MS, type WriteCeilingResult } from "./write-ceiling-setup.js";

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits));

/** The floor's req/s: the mean of its runs before and after the product's. */
function floorRps(r: WriteCeilingResult): number {
  const floors = r.runs.filter((run) => run.server === "floor");
  return floors.reduce((n, run) => n + run.rps, 0) / Math.max(1, floors.length);
}

const productRun = (r: WriteCeilingResult, announce: AnnounceMode) =>
  r.runs.find((run) => run.server === "product" && run.announce === announce);

export function writeCeilingTable(r: WriteCeilingResult): string {
  const floor = floorRps(r);
  const lines = [
    "| target | announcement | req/s | × floor | p50 / p99 ms | errors | server CPU ms/req | counts lowered |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const run of r.runs) {
    const who = run.server === "floor" ? "floor (bench/floor.ts)" : `product, ${run.instances} instances`;
    const rps = run.instances > 1 ? `${fmt(run.rps, 0)} (${run.rpsPerInstance.map((x) => fmt(x, 0)).join(" + ")})` : fmt(run.rps, 0);
    lines.push(
      `| ${who} | ${WHAT[run.announce]} | ${rps} | ${run.server === "floor" ? "" : fmt(run.rps / floor, 2)} | ${fmt(run.p50)} / ${fmt(run.p99)} | ${run.errors} | ${fmt(run.cpuMsPerRequest, 2)} | ${run.changes} |`,
    );
  }
  const delivered = r.deliveries;
  const row = (label: string, cell: (d: Delivery) => string) => `| ${label} | ${delivered.map(cell).join(" | ")} |`;
  const ms = (n: number) => fmt(n, 0);
  lines.push(
    "",
    `Delivery to the ${delivered[0]?.streams ?? 0} unread-count streams (one per user, half on each instance), each product run:`,
    "",
    `| measurement | ${delivered.map((d) => WHAT[d.announce]).join(" | ")} |`,
    `|---|${delivered.map(() => "---:").join("|")}|`,
    row("changes made (unread counts lowered in the database)", (d) => String(d.changes)),
    row("answers recorded (latency samples)", (d) => String(d.answered)),
    row("events received", (d) => String(d.events)),
    row("users whose count changed / with ≥ 1 event", (d) => `${d.usersChanged} / ${d.usersWithEvents}`),
    row("**changed users without an event** (0)", (d) => `**${d.usersChangedWithoutEvent}**`),
    row("**users whose last count ≠ the database's** (0)", (d) => `**${d.wrongFinal}**`),
    row("**answer → event p50 / p99 / max ms**", (d) => `**${ms(d.latency.p50)} / ${ms(d.latency.p99)} / ${ms(d.latency.max)}**`),
    row("answered changes never seen on their stream", (d) => String(d.unmatched)),
    row(
      "NOTIFYs on unread_count (bench's LISTEN) / ids carried / most ids in one",
      (d) => `${d.notifies} / ${d.notifiedItems} / ${d.maxItemsPerNotify}`,
    ),
    row("outbox backlog, sampled every 200 ms: max rows / oldest's max age", (d) =>
      d.outbox
        ? `${d.outbox.maxRows} / ${fmt(d.outbox.maxLagSeconds, 2)} s (${d.outbox.samples} samples); ${d.outbox.rowsAtEnd} left after the load`
        : "-",
    ),
    row("end of load → report (outbox empty, then 2 s)", (d) => `${fmt(d.settleMs / 1000, 1)} s`),
    row("streams ended early", (d) => String(d.endedEarly)),
  );
  if (r.cohort) {
    lines.push(
      "",
      `Cohort of ${r.cohort.pros} pros activated once (restriction.activateCohort, outbox on): ${r.cohort.notifies} NOTIFY on restriction_flags (payload ${r.cohort.payloads.join(", ") || "-"}), heard ${fmt(r.cohort.heardAfterMs, 0)} ms after the call (the call took ${fmt(r.cohort.activationMs, 0)} ms).`,
    );
  }
  if (r.wide) {
    lines.push(
      "",
      `One statement lowering all ${r.wide.users} users' counts at once (raw SQL, as a seed or a script would; outbox on): ${r.wide.streamsRight} of ${r.wide.users} streams showed the database's count ${WIDE_WAIT_MS / 1000} s later; ${r.wide.notifies} NOTIFYs on unread_count carrying ${r.wide.notifiedItems} ids; ${r.wide.outboxRowsLeft} outbox rows still waiting.`,
    );
  }
  if (r.exhausted) lines.push("", `**${r.exhausted} requests found their user's unread notifications used up** (the seed was short).`);
  return lines.join("\n");
}

export function writeCeilingVerdicts(r: WriteCeilingResult): Verdict[] {
  const floor = floorRps(r);
  const floors = r.runs.filter((run) => run.server === "floor").map((run) => fmt(run.rps, 0));
  const outbox = productRun(r, "outbox");
  const notify = productRun(r, "notify");
  const none = productRun(r, "none");
  const delivery = r.deliveries.find((d) => d.announce === "outbox");
  const out: Verdict[] = [];
  if (outbox) {
    out.push({
      target: "single-user count-changing commits, outbox + relay ≥ 0.7× the floor",
      met: outbox.rps / floor >= 0.7 && outbox.errors === 0,
      detail: `${fmt(outbox.rps, 0)} vs ${fmt(floor, 0)} req/s (floor runs before and after: ${floors.join(", ")}) = ${fmt(outbox.rps / floor, 2)}×; ${outbox.errors} errors. For comparison: NOTIFY at commit ${notify ? `${fmt(notify.rps, 0)} req/s = ${fmt(notify.rps / floor, 2)}×` : "-"}; the product with no announcement (its own ceiling here) ${none ? `${fmt(none.rps, 0)} req/s = ${fmt(none.rps / floor, 2)}×, so announcing keeps ${fmt(outbox.rps / none.rps, 2)}× of it with the outbox${notify ? `, ${fmt(notify.rps / none.rps, 2)}× with NOTIFY at commit` : ""}` : "-"}`,
    });
  }
  if (delivery) {
    out.push({
      target: "every change reaches its stream (outbox + relay): nothing missing",
      met: delivery.usersChangedWithoutEvent === 0 && delivery.wrongFinal === 0 && delivery.unmatched === 0 && delivery.endedEarly === 0,
      detail: `${delivery.changes} changes for ${delivery.usersChanged} users, ${delivery.events} events; ${delivery.usersChangedWithoutEvent} changed users without an event, ${delivery.wrongFinal} streams whose last count is not the database's${delivery.wrongSamples.length ? ` (${delivery.wrongSamples.slice(0, 3).join("; ")})` : ""}, ${delivery.unmatched} answered changes never seen`,
    });
    out.push({
      target: "change → event p99 ≤ 1 s at that rate (outbox + relay; from the HTTP answer)",
      met: delivery.latency.p99 <= 1000 && delivery.unmatched === 0,
      detail: `p50 ${fmt(delivery.latency.p50, 0)} / p99 ${fmt(delivery.latency.p99, 0)} / max ${fmt(delivery.latency.max, 0)} ms over ${delivery.latency.samples} changes; ${delivery.notifies} NOTIFYs carried ${delivery.notifiedItems} ids (${fmt(delivery.notifiedItems / Math.max(1, delivery.notifies), 1)} on average)`,
    });
  }
  if (r.cohort) {
    out.push({
      target: `a cohort of ${r.cohort.pros} is one announcement, not ${r.cohort.pros}`,
      met: r.cohort.notifies === 1,
      detail: `${r.cohort.notifies} NOTIFY on restriction_flags (${r.cohort.payloads.join(", ") || "none"})`,
    });
  }
  if (r.wide) {
    out.push({
      target: `one statement changing ${r.wide.users} users' counts is announced to every stream (outbox + relay)`,
      met: r.wide.streamsRight === r.wide.users && r.wide.outboxRowsLeft === 0,
      detail: `${r.wide.streamsRight} of ${r.wide.users} streams right ${WIDE_WAIT_MS / 1000} s after the commit; ${r.wide.notifies} NOTIFYs carrying ${r.wide.notifiedItems} ids; ${r.wide.outboxRowsLeft} outbox rows left unannounced`,
    });
  }
  return out;
}

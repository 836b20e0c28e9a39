// The checker: reads a history (and the final database recorded in it) and reports every violation of the
// promises, with the requests that show it. `node --import tsx test/soak/chaos/checker.ts <history.jsonl>`
// checks a history again without running anything.
import { pathToFileURL } from "node:url";
import { origin, type Violation } from "./bounds.js";
import { checkCountReads, checkProReads, checkRevocations } from "./check-reads.js";
import { checkOfrepStreams, checkPushes, checkUnreadStreams } from "./check-streams.js";
import { checkAnswered, checkGated, checkKeyedRetries, checkProducer, checkProFinal, checkUserWrites } from "./check-writes.js";
import { type History, readHistory } from "./history.js";
import { userModels } from "./model.js";

export function check(h: History): Violation[] {
  if (!h.final) return [{ kind: "no final state", what: "the history has no final database read: the run did not finish", requests: [] }];
  origin.t0 = (h.meta.began as number | undefined) ?? 0;
  const instances = (h.meta.instances as number | undefined) ?? 3;
  const users = userModels(h, instances);
  const db = h.final.db;
  return [
    ...checkProducer(h, db),
    ...checkUserWrites(db, users),
    ...checkProFinal(h, db),
    ...checkKeyedRetries(h),
    ...checkProReads(h),
    ...checkCountReads(h, users),
    ...checkRevocations(h),
    ...checkUnreadStreams(h, users),
    ...checkOfrepStreams(h),
    ...checkPushes(h, db),
    ...checkGated(h, db),
    ...checkAnswered(h),
  ];
}

/** Prints the violations grouped by kind (the first few of each in full); returns how many there were. */
export function printViolations(violations: Violation[], first = 5): number {
  const byKind = new Map<string, Violation[]>();
  for (const v of violations) byKind.set(v.kind, [...(byKind.get(v.kind) ?? []), v]);
  for (const [kind, list] of byKind) {
    console.log(`\nviolation: ${kind} (${list.length})`);
    for (const v of list.slice(0, first))
      console.log(`  - ${v.what}${v.requests.length ? `\n    requests: ${v.requests.map((id) => `#${id}`).join(", ")}` : ""}`);
  }
  return violations.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: node --import tsx test/soak/chaos/checker.ts <history.jsonl>");
    process.exit(2);
  }
  const violations = check(await readHistory(file));
  printViolations(violations);
  console.log(`violations: ${violations.length}`);
  process.exit(violations.length ? 1 : 0);
}

// The audit log in tests (server/audit/): a test signing key, events written as a change would write them,
// and the log as the export shows it, checked against the stored head.
import { randomUUID } from "node:crypto";
import type { Db } from "../../db/client.js";
import { eventLeafHash } from "../../server/audit/log/leaf.js";
import { Frontier } from "../../server/audit/log/merkle.js";
import { generateSignerKey, parseSignerKey } from "../../server/audit/log/note.js";
import { exportPage } from "../../server/audit/proofs.js";
import { recordAudit } from "../../server/audit/record.js";
import { sealAll } from "../../server/audit/sealer.js";
import { readHead } from "../../server/audit/tree.js";

export const TEST_LOG_ORIGIN = "audit.test.local/log";

/** A fresh key pair: the AUDIT_SIGNING_KEY value, its signer, and the verifier key text. */
export function testSigningKey(origin = TEST_LOG_ORIGIN) {
  const keys = generateSignerKey(origin);
  return { text: keys.signer, signer: parseSignerKey(keys.signer), verifier: keys.verifier };
}

/** One audit event, recorded as a change records it (in `db`, a transaction or not); answers its id. */
export async function writeEvent(db: Parameters<typeof recordAudit>[0], note = "test"): Promise<string> {
  const id = randomUUID();
  await recordAudit(
    db,
    { actor: { id: "actor-1", email: "actor@test.local" }, requestId: null },
    { id, action: "cohort.create", target: { type: "cohort", id: randomUUID() }, before: null, after: { note }, details: { note } },
  );
  return id;
}

/** A log with at least one sealed leaf; answers its size. */
export async function sealedLog(db: Db): Promise<number> {
  if ((await readHead(db)).size === 0) await writeEvent(db);
  await sealAll(db);
  return (await readHead(db)).size;
}

/** Every exported line, from the first leaf. */
export async function exportAll(db: Db) {
  const lines = [];
  for (let after = -1; ; ) {
    const page = await exportPage(db, after, 1000);
    lines.push(...page);
    if (page.length < 1000) return lines;
    after = page.at(-1)!.leafIndex;
  }
}

/** The log is whole: leaves 0…n−1 once each, and the head's root is the root of the exported events. */
export async function logIsWhole(db: Db): Promise<{ size: number; eventIds: string[] }> {
  const lines = await exportAll(db);
  const head = await readHead(db);
  const frontier = Frontier.empty();
  lines.forEach((line, i) => {
    if (line.leafIndex !== i) throw new Error(`leaf ${i} is missing (next is ${line.leafIndex})`);
    frontier.append(eventLeafHash(line.event));
  });
  if (head.size !== lines.length) throw new Error(`the head says ${head.size} leaves, the export has ${lines.length}`);
  if (!frontier.root().equals(head.root)) throw new Error("the head's root is not the root of the exported events");
  return { size: head.size, eventIds: lines.map((l) => l.event.id) };
}

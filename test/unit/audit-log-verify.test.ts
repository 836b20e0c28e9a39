// The offline verifier's rules (server/audit/log/verify.ts) on logs built here: what it names when the
// checkpoints are not the log's, when only checkpoints were kept, and when the export is short.
import { describe, expect, it } from "vitest";
import { eventLeafHash } from "../../server/audit/log/leaf.js";
import { Frontier } from "../../server/audit/log/merkle.js";
import { checkpointText, generateSignerKey, parseSignerKey, parseVerifierKey, signNote } from "../../server/audit/log/note.js";
import { type LeavesFile, verifyLog } from "../../server/audit/log/verify.js";

const ORIGIN = "unit.test/log";
const keys = generateSignerKey(ORIGIN);
const events = Array.from({ length: 6 }, (_, i) => ({ id: `e${i}`, action: "cohort.create", details: { n: i } }));
const lines = events.map((event, leafIndex) => JSON.stringify({ leafIndex, event }));

/** A checkpoint of the first `size` events, signed with `signer`, and the leaves file from `from`. */
function checkpoint(size: number, from = 0, signer = keys.signer) {
  const frontier = Frontier.empty();
  const hashes = events.slice(0, size).map(eventLeafHash);
  for (const hash of hashes) frontier.append(hash);
  const note = signNote(checkpointText({ origin: ORIGIN, size, root: frontier.root() }), parseSignerKey(signer));
  const leaves: LeavesFile = { name: `${from}-${size}.leaves`, from, to: size, bytes: Buffer.concat(hashes.slice(from)) };
  return { file: { name: `${size}.checkpoint`, note }, leaves };
}

const verify = (exportLines: string[], cps: ReturnType<typeof checkpoint>[], withLeaves = true) =>
  verifyLog({
    exportLines,
    checkpoints: cps.map((c) => c.file),
    leaves: withLeaves ? cps.map((c) => c.leaves) : [],
    verifier: parseVerifierKey(keys.verifier),
  });

describe("verifyLog", () => {
  it("accepts the log, with or without the leaves files", async () => {
    const cps = [checkpoint(2), checkpoint(5, 2)];
    expect(await verify(lines, cps)).toEqual({ ok: true, leaves: 6, checkpoints: 2, signedSize: 5 });
    expect(await verify(lines, cps, false)).toEqual({ ok: true, leaves: 6, checkpoints: 2, signedSize: 5 });
  });

  it("names a checkpoint another key signed", async () => {
    const other = generateSignerKey(ORIGIN).signer;
    const verdict = await verify(lines, [checkpoint(2), checkpoint(5, 2, other)]);
    expect(verdict).toEqual({
      ok: false,
      problem: `checkpoint 5.checkpoint: no signature by ${keys.verifier.split("+").slice(0, 2).join("+")}`,
    });
  });

  it("without leaves files, names the first checkpoint whose root the export does not reproduce", async () => {
    const changed = [...lines];
    changed[3] = JSON.stringify({ leafIndex: 3, event: { ...events[3], details: { n: 99 } } });
    expect(await verify(changed, [checkpoint(2), checkpoint(5, 2)], false)).toEqual({
      ok: false,
      problem: "checkpoint 5.checkpoint: the export's first 5 events do not hash to its root",
    });
  });

  it("names the first leaf a checkpoint signed that the export lacks", async () => {
    expect(await verify(lines.slice(0, 4), [checkpoint(5)])).toEqual({
      ok: false,
      problem: "leaf 4: missing from the export, which ends there (checkpoint 5.checkpoint signed 5 leaves)",
    });
  });
});

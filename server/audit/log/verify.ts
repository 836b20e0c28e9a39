// The offline verifier's rules (npm run audit:verify, tools/audit-verify.ts): given an export, the signed
// checkpoints and the leaf hashes published beside them, and the log's verifier key, it checks that
//   1. every checkpoint is signed by the key and names the key's origin;
//   2. the published leaf hashes hash to every checkpoint they reach (so they are the signed leaves);
//   3. the export's events are exactly the leaves: leaf i is the i-th line, its canonical JSON hashes to the
//      published leaf hash, and the first n lines hash to the root of each checkpoint of size n. One sequence
//      of leaves reproducing every root is the log's consistency from each checkpoint to the next.
// It names the first leaf index or checkpoint that fails. Pure: no database, no server, no file system.
import { eventLeafHash } from "./leaf.js";
import { Frontier, type Hash } from "./merkle.js";
import { openCheckpoint, type Verifier } from "./note.js";

export type CheckpointFile = { name: string; note: string };
export type LeavesFile = { name: string; from: number; to: number; bytes: Buffer };
export type Verdict = { ok: true; leaves: number; checkpoints: number; signedSize: number } | { ok: false; problem: string };

class Failure extends Error {}
const fail = (problem: string): never => {
  throw new Failure(problem);
};

type Signed = { size: number; root: Hash; name: string };

function openAll(files: readonly CheckpointFile[], verifier: Verifier): Signed[] {
  const bySize = new Map<number, Signed>();
  for (const file of files) {
    let opened: ReturnType<typeof openCheckpoint>;
    try {
      opened = openCheckpoint(file.note, verifier);
    } catch (err) {
      return fail(`checkpoint ${file.name}: ${(err as Error).message}`);
    }
    const same = bySize.get(opened.size);
    if (same && !same.root.equals(opened.root))
      fail(`checkpoint ${file.name}: a second signed root for tree size ${opened.size} (${same.name})`);
    bySize.set(opened.size, { size: opened.size, root: opened.root, name: file.name });
  }
  return [...bySize.values()].sort((a, b) => a.size - b.size);
}

const rootOf = (hashes: readonly Hash[]): Hash => {
  const frontier = Frontier.empty();
  for (const hash of hashes) frontier.append(hash);
  return frontier.root();
};

/**
 * The leaf hashes the checkpoints vouch for, from leaf 0: checkpoint by checkpoint, the file of the leaves
 * it added must hash, with those before, to its root. A later checkpoint whose leaves differ from ones an
 * earlier checkpoint vouched for is a rewritten history: the earlier one stands, and the leaf is named.
 */
function publishedLeaves(files: readonly LeavesFile[], signed: readonly Signed[]): Hash[] {
  const vouched: Hash[] = [];
  const vouchedBy: string[] = [];
  for (const checkpoint of signed) {
    if (checkpoint.size <= vouched.length) {
      if (!rootOf(vouched.slice(0, checkpoint.size)).equals(checkpoint.root)) {
        fail(`checkpoint ${checkpoint.name}: its root is not the root of the first ${checkpoint.size} leaves other checkpoints vouch for`);
      }
      continue;
    }
    const file = files.find((f) => f.to === checkpoint.size && f.from <= vouched.length);
    // No leaves for this one (a directory without them): the export is still checked against its root.
    if (!file) break;
    if (file.bytes.length !== (file.to - file.from) * 32) fail(`leaf hashes ${file.name}: not ${file.to - file.from} hashes`);
    const added = Array.from({ length: file.to - file.from }, (_, k) => Buffer.from(file.bytes.subarray(k * 32, (k + 1) * 32)));
    const candidate = [...vouched.slice(0, file.from), ...added];
    if (!rootOf(candidate).equals(checkpoint.root))
      fail(`checkpoint ${checkpoint.name}: the published leaf hashes do not hash to its root`);
    const differs = vouched.findIndex((hash, i) => !hash.equals(candidate[i]!));
    if (differs >= 0) {
      fail(
        `leaf ${differs}: checkpoint ${checkpoint.name} signs another event than checkpoint ${vouchedBy[differs]} did: the history was rewritten after that was published`,
      );
    }
    for (let i = vouched.length; i < candidate.length; i++) {
      vouched.push(candidate[i]!);
      vouchedBy.push(checkpoint.name);
    }
  }
  return vouched;
}

/** Verifies an export (its lines, in file order) against the checkpoints. */
export async function verifyLog(input: {
  exportLines: AsyncIterable<string> | Iterable<string>;
  checkpoints: readonly CheckpointFile[];
  leaves: readonly LeavesFile[];
  verifier: Verifier;
}): Promise<Verdict> {
  try {
    const signed = openAll(input.checkpoints, input.verifier);
    if (signed.length === 0) fail("no checkpoint: nothing to verify against");
    const published = publishedLeaves(input.leaves, signed);
    const frontier = Frontier.empty();
    let next = 0;
    // Checkpoints of size 0 hold no leaves: publishedLeaves checked their root.
    while (next < signed.length && signed[next]!.size === 0) next++;
    for await (const text of input.exportLines) {
      if (text.trim() === "") continue;
      const i = frontier.size;
      let line: { leafIndex?: unknown; event?: unknown };
      try {
        line = JSON.parse(text) as typeof line;
      } catch {
        return fail(`leaf ${i}: the export's line ${i + 1} is not JSON`);
      }
      if (line.leafIndex !== i) {
        fail(
          typeof line.leafIndex === "number" && line.leafIndex > i
            ? `leaf ${i}: missing from the export (the next line is leaf ${line.leafIndex})`
            : `leaf ${i}: the export's line ${i + 1} is leaf ${String(line.leafIndex)}`,
        );
      }
      const hash = eventLeafHash(line.event);
      if (i < published.length && !hash.equals(published[i]!)) {
        const id = (line.event as { id?: unknown } | null)?.id;
        fail(`leaf ${i}: event ${String(id)} is not the event the log signed (its hash differs from the published leaf hash)`);
      }
      frontier.append(hash);
      while (next < signed.length && signed[next]!.size === frontier.size) {
        if (!frontier.root().equals(signed[next]!.root))
          fail(`checkpoint ${signed[next]!.name}: the export's first ${frontier.size} events do not hash to its root`);
        next++;
      }
    }
    if (next < signed.length) {
      const short = signed[next]!;
      fail(`leaf ${frontier.size}: missing from the export, which ends there (checkpoint ${short.name} signed ${short.size} leaves)`);
    }
    return { ok: true, leaves: frontier.size, checkpoints: signed.length, signedSize: signed.at(-1)!.size };
  } catch (err) {
    if (err instanceof Failure) return { ok: false, problem: err.message };
    throw err;
  }
}

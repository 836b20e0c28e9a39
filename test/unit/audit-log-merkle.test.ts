// The audit log's Merkle tree (server/audit/log/merkle.ts) against a second implementation: the RFC 6962
// test vectors of transparency-dev/merkle (testonly/constants.go, proof/verify_test.go), and the tree as
// RFC 6962 §2.1 defines it, written here as plainly as the RFC does, for fast-check to compare with.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  consistencyRanges,
  EMPTY_ROOT,
  Frontier,
  foldSubtrees,
  type Hash,
  hashChildren,
  hashLeaf,
  inclusionRanges,
  type Range,
  subtrees,
  verifyConsistency,
  verifyInclusion,
} from "../../server/audit/log/merkle.js";

const hex = (h: string) => Buffer.from(h, "hex");
const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(hex);
/** Roots of the trees of the first 0…8 leaves. */
const ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
].map(hex);
/** [leaf index (0-based), tree size, proof]. */
const INCLUSION: [number, number, string[]][] = [
  [0, 1, []],
  [
    0,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    5,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [
    1,
    5,
    [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [
    2,
    5,
    [
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
  [
    6,
    7,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
];

/** MTH as RFC 6962 §2.1 writes it. */
function referenceHash(leaves: readonly Hash[]): Hash {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return hashChildren(referenceHash(leaves.slice(0, k)), referenceHash(leaves.slice(k)));
}

/** A range's hash the way the server computes it: from the stored complete subtrees. */
const viaSubtrees = (leaves: readonly Hash[], range: Range) =>
  foldSubtrees(subtrees(range).map((n) => referenceHash(leaves.slice(n.index * 2 ** n.level, (n.index + 1) * 2 ** n.level))));
const proofOf = (leaves: readonly Hash[], ranges: Range[]) => ranges.map((r) => viaSubtrees(leaves, r));

const leafHashes = LEAVES.map(hashLeaf);

describe("the RFC 6962 vectors", () => {
  it("the root of every prefix of the vector leaves, from the right edge the sealer keeps", () => {
    const frontier = Frontier.empty();
    expect(frontier.root()).toEqual(ROOTS[0]);
    leafHashes.forEach((leaf, i) => {
      frontier.append(leaf);
      expect(frontier.root().toString("hex"), `size ${i + 1}`).toBe(ROOTS[i + 1]!.toString("hex"));
    });
  });

  it.each(INCLUSION)("the inclusion proof of leaf %i in a tree of %i is the vector's, and verifies", (index, size, want) => {
    const proof = proofOf(leafHashes, inclusionRanges(index, size));
    expect(proof.map((h) => h.toString("hex"))).toEqual(want);
    expect(verifyInclusion(index, size, leafHashes[index]!, proof, ROOTS[size]!)).toBe(true);
    expect(verifyInclusion(index, size, hashLeaf(Buffer.from("WrongLeaf")), proof, ROOTS[size]!)).toBe(false);
  });

  it.each(CONSISTENCY)("the consistency proof from %i to %i leaves is the vector's, and verifies", (from, to, want) => {
    const proof = proofOf(leafHashes, consistencyRanges(from, to));
    expect(proof.map((h) => h.toString("hex"))).toEqual(want);
    expect(verifyConsistency(from, to, ROOTS[from]!, ROOTS[to]!, proof)).toBe(true);
    if (from !== to) expect(verifyConsistency(from, to, ROOTS[to]!, ROOTS[from]!, proof)).toBe(false);
  });
});

const sizedTree = fc.integer({ min: 1, max: 70 }).map((n) => Array.from({ length: n }, (_, i) => hashLeaf(Buffer.from(`leaf ${i}`))));

describe("properties, against RFC 6962's definition", () => {
  it("the right edge, and every prefix from its complete subtrees, hash as the definition says", () => {
    fc.assert(
      fc.property(sizedTree, fc.nat(), (leaves, e) => {
        const frontier = Frontier.empty();
        for (const leaf of leaves) frontier.append(leaf);
        expect(frontier.root()).toEqual(referenceHash(leaves));
        const end = e % (leaves.length + 1);
        expect(viaSubtrees(leaves, { start: 0, end })).toEqual(referenceHash(leaves.slice(0, end)));
      }),
    );
  });

  it("every inclusion proof verifies, and fails for a tampered leaf, another index or another root", () => {
    fc.assert(
      fc.property(sizedTree, fc.nat(), fc.nat(), (leaves, i, s) => {
        const size = 1 + (s % leaves.length);
        const index = i % size;
        const root = referenceHash(leaves.slice(0, size));
        const proof = proofOf(leaves, inclusionRanges(index, size));
        expect(verifyInclusion(index, size, leaves[index]!, proof, root)).toBe(true);
        expect(verifyInclusion(index, size, hashLeaf(Buffer.from("tampered")), proof, root)).toBe(false);
        if (size > 1) expect(verifyInclusion((index + 1) % size, size, leaves[index]!, proof, root)).toBe(false);
        expect(verifyInclusion(index, size, leaves[index]!, proof, hashLeaf(Buffer.from("another root")))).toBe(false);
      }),
    );
  });

  it("every consistency proof verifies, and fails when a leaf of the first tree was changed", () => {
    fc.assert(
      fc.property(sizedTree, fc.nat(), fc.nat(), fc.nat(), (leaves, a, b, t) => {
        const [from, to] = [a % (leaves.length + 1), b % (leaves.length + 1)].sort((x, y) => x - y) as [number, number];
        const proof = proofOf(leaves, consistencyRanges(from, to));
        const fromRoot = referenceHash(leaves.slice(0, from));
        const toRoot = referenceHash(leaves.slice(0, to));
        expect(verifyConsistency(from, to, fromRoot, toRoot, proof)).toBe(true);
        if (from === 0 || from === to) return;
        // History rewritten below the first tree: the second tree no longer extends it.
        const rewritten = [...leaves];
        rewritten[t % from] = hashLeaf(Buffer.from("rewritten"));
        const rewrittenProof = proofOf(rewritten, consistencyRanges(from, to));
        expect(verifyConsistency(from, to, fromRoot, referenceHash(rewritten.slice(0, to)), rewrittenProof)).toBe(false);
      }),
    );
  });
});

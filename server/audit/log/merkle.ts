// The RFC 6962 (and RFC 9162 §2.1) Merkle tree of the audit log: hashing, the complete subtrees any range of
// leaves is made of, proofs and their verification. Pure: node:crypto only, so the offline verifier
// (tools/audit-verify.ts) runs the same lines as the server. Sizes are JS numbers (exact up to 2^53), so
// halving is Math.floor(x / 2), never `>>` (32 bits).
import { createHash } from "node:crypto";

export type Hash = Buffer;

const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash("sha256");
  for (const part of parts) h.update(part);
  return h.digest();
};
const LEAF_PREFIX = Buffer.from([0]);
const NODE_PREFIX = Buffer.from([1]);

/** SHA-256(0x00 || leaf). */
export const hashLeaf = (leaf: Uint8Array): Hash => sha256(LEAF_PREFIX, leaf);
/** SHA-256(0x01 || left || right). */
export const hashChildren = (left: Uint8Array, right: Uint8Array): Hash => sha256(NODE_PREFIX, left, right);
/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = sha256();

/** RFC 6962's split point: the largest power of two smaller than n (n ≥ 2). */
export function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A stored node: the complete subtree over leaves [index·2^level, (index+1)·2^level). */
export type NodeId = { level: number; index: number };
/** Leaves [start, end). */
export type Range = { start: number; end: number };

/**
 * The aligned complete subtrees that leaves [start, end) are made of, left to right, largest first. Every
 * range an RFC 6962 proof names is made this way, and its hash is foldSubtrees of theirs.
 */
export function subtrees({ start, end }: Range): NodeId[] {
  const out: NodeId[] = [];
  let at = start;
  while (at < end) {
    let size = 1;
    let level = 0;
    while (at % (size * 2) === 0 && at + size * 2 <= end) {
      size *= 2;
      level++;
    }
    out.push({ level, index: at / size });
    at += size;
  }
  return out;
}

/** The hash of a range from the hashes of its subtrees (in subtrees' order): folded from the right. */
export function foldSubtrees(hashes: readonly Hash[]): Hash {
  if (hashes.length === 0) return EMPTY_ROOT;
  let hash = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) hash = hashChildren(hashes[i]!, hash);
  return hash;
}

/** The ranges whose hashes make the inclusion proof of leaf `index` in the tree of `size` (RFC 6962 PATH), in proof order. */
export function inclusionRanges(index: number, size: number): Range[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const out: Range[] = [];
  const path = (m: number, start: number, end: number): void => {
    if (end - start <= 1) return;
    const k = split(end - start);
    if (m < k) {
      path(m, start, start + k);
      out.push({ start: start + k, end });
    } else {
      path(m - k, start + k, end);
      out.push({ start, end: start + k });
    }
  };
  path(index, 0, size);
  return out;
}

/** The ranges whose hashes make the consistency proof from `from` leaves to `to` (RFC 6962 PROOF), in proof order. */
export function consistencyRanges(from: number, to: number): Range[] {
  if (!(from >= 0 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  const out: Range[] = [];
  const subproof = (m: number, start: number, end: number, whole: boolean): void => {
    const n = end - start;
    if (m === n) {
      if (!whole) out.push({ start, end });
      return;
    }
    const k = split(n);
    if (m <= k) {
      subproof(m, start, start + k, whole);
      out.push({ start: start + k, end });
    } else {
      subproof(m - k, start + k, end, false);
      out.push({ start, end: start + k });
    }
  };
  subproof(from, 0, to, true);
  return out;
}

const odd = (x: number) => x % 2 === 1;
const half = (x: number) => Math.floor(x / 2);

/** The root an inclusion proof leads to (RFC 9162 §2.1.3.2), or null when the proof cannot be one. */
export function rootFromInclusion(index: number, size: number, leaf: Hash, proof: readonly Hash[]): Hash | null {
  if (!(index >= 0 && index < size)) return null;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return null;
    if (odd(fn) || fn === sn) {
      r = hashChildren(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : null;
}

export function verifyInclusion(index: number, size: number, leaf: Hash, proof: readonly Hash[], root: Hash): boolean {
  const got = rootFromInclusion(index, size, leaf, proof);
  return got?.equals(root) ?? false;
}

/** Whether the tree of `to` leaves with root `toRoot` extends the tree of `from` with `fromRoot` (RFC 9162 §2.1.4.2). */
export function verifyConsistency(from: number, to: number, fromRoot: Hash, toRoot: Hash, proof: readonly Hash[]): boolean {
  if (!(from >= 0 && from <= to)) return false;
  if (from === to) return proof.length === 0 && fromRoot.equals(toRoot);
  if (from === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  // A first tree of a power-of-two size is a node of the second: the proof leaves its hash out.
  const path = isPowerOfTwo(from) ? [fromRoot, ...proof] : [...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = hashChildren(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && fr.equals(fromRoot) && sr.equals(toRoot);
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

/**
 * The right edge of a tree: the hashes of the complete subtrees of [0, size), largest first. Appending a
 * leaf completes the subtrees it closes; `append` answers every node it completed, the leaf first, so the
 * sealer stores them and the verifier computes each checkpoint's root in one pass.
 */
export class Frontier {
  private constructor(
    private count: number,
    private readonly stack: Hash[],
  ) {}

  static empty(): Frontier {
    return new Frontier(0, []);
  }

  /** From the hashes of subtrees({start: 0, end: size}), in that order. */
  static of(size: number, hashes: readonly Hash[]): Frontier {
    if (hashes.length !== subtrees({ start: 0, end: size }).length) throw new RangeError(`a tree of ${size} has another right edge`);
    return new Frontier(size, [...hashes]);
  }

  get size(): number {
    return this.count;
  }

  append(leaf: Hash): (NodeId & { hash: Hash })[] {
    const made = [{ level: 0, index: this.count, hash: leaf }];
    let hash = leaf;
    let index = this.count;
    let level = 0;
    while (odd(index)) {
      hash = hashChildren(this.stack.pop()!, hash);
      index = half(index);
      level++;
      made.push({ level, index, hash });
    }
    this.stack.push(hash);
    this.count++;
    return made;
  }

  root(): Hash {
    return foldSubtrees(this.stack);
  }
}

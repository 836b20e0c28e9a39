// Pure rule for a producer's `data` (a JSON object stored as jsonb): every string in it, key or value, at any
// depth, must be text PostgreSQL stores as given, as every text field must (server/http/text.ts).
import { unstorable } from "./text.js";

export type UnstorableText = { path: (string | number)[]; message: string };

/**
 * The first string in `value` (in document order) that PostgreSQL cannot store, with its path and why; null
 * when there is none. A bad key is named by its object's path. Iterative: nesting depth costs no stack.
 */
export function firstUnstorableText(value: unknown): UnstorableText | null {
  // Each node keeps its parent, not a copy of its path: the path is built once, for the one found.
  type Node = { parent: Node | null; key: string | number | null; value: unknown };
  const pathOf = (node: Node) => {
    const path: (string | number)[] = [];
    for (let n: Node | null = node; n?.key != null; n = n.parent) path.push(n.key);
    return path.reverse();
  };
  const stack: Node[] = [{ parent: null, key: null, value }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === "string") {
      const message = unstorable(v);
      if (message) return { path: pathOf(node), message };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ parent: node, key: i, value: v[i] });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (const [key] of entries) {
        const message = unstorable(key);
        // JSON.stringify escapes NUL and lone surrogates, so the answer naming the key is itself storable.
        if (message) return { path: pathOf(node), message: `the key ${JSON.stringify(key)} ${message}` };
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ parent: node, key: entries[i]![0], value: entries[i]![1] });
    }
  }
  return null;
}

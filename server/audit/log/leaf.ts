// A leaf of the audit log: the RFC 8785 (JCS) canonical JSON of an exported event, as UTF-8 bytes
// (CONTRACT part five). JCS by `canonicalize`, written by an author of RFC 8785: sorting keys by UTF-16
// code units and printing numbers as ECMAScript does are easy to get subtly wrong by hand.
import canonicalize from "canonicalize";
import { hashLeaf } from "./merkle.js";

export function leafBytes(event: unknown): Buffer {
  const text = canonicalize(event);
  if (text === undefined) throw new TypeError("an audit event must be JSON");
  return Buffer.from(text, "utf8");
}

export const eventLeafHash = (event: unknown): Buffer => hashLeaf(leafBytes(event));

// Pure rule of the audit log's cursor: an opaque token for "events older than this one". No I/O.

const PREFIX = "seq:";

export const encodeCursor = (seq: number): string => Buffer.from(`${PREFIX}${seq}`).toString("base64url");

/** The event sequence number a cursor stands for, or null when it is not one this service made. */
export function decodeCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString();
  if (!text.startsWith(PREFIX)) return null;
  const digits = text.slice(PREFIX.length);
  if (!/^[1-9][0-9]{0,15}$/.test(digits)) return null;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? seq : null;
}

// A delivery's receipt token (docs/api.md#delivery-receipts): what a service worker, or the page a
// declarative push opened, sends back to say the notification was displayed or clicked, with no session.
//
// HMAC-SHA256 over the delivery id and an expiry, rather than a random token stored hashed: the token is in
// the payload, which is built once at ingest and kept in push_deliveries, so a stored random token would sit
// there in clear anyway; the HMAC needs no column, no index and no lookup to refuse a forged one. The key is
// derived (HKDF, its own label) from VAPID_PRIVATE_KEY: a server secret every instance already shares, set
// exactly when pushes are sent, and whose change already voids every subscription, so nothing outlives it.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

const ID_BYTES = 16;
const EXPIRY_BYTES = 4;
const MAC_BYTES = 16;
const TOKEN_BYTES = ID_BYTES + EXPIRY_BYTES + MAC_BYTES;
/** Every token's length in base64url characters: the payload's size check reserves exactly this. */
export const RECEIPT_TOKEN_LENGTH = Math.ceil((TOKEN_BYTES * 4) / 3);

export type ReceiptTokens = {
  /** A token for this delivery, valid until `expiresAt`. */
  sign(deliveryId: string, expiresAt: Date): string;
  /** The delivery a token names, or null when it is malformed, forged or expired. */
  verify(token: unknown, now?: Date): string | null;
};

const uuidBytes = (id: string) => Buffer.from(id.replaceAll("-", ""), "hex");
const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export function receiptTokens(vapidPrivateKey: string): ReceiptTokens {
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(vapidPrivateKey, "base64url"), Buffer.alloc(0), "push-receipt v1", 32));
  const mac = (body: Buffer) => createHmac("sha256", key).update(body).digest().subarray(0, MAC_BYTES);
  return {
    sign(deliveryId, expiresAt) {
      const expiry = Buffer.alloc(EXPIRY_BYTES);
      expiry.writeUInt32BE(Math.floor(expiresAt.getTime() / 1000));
      const body = Buffer.concat([uuidBytes(deliveryId), expiry]);
      return Buffer.concat([body, mac(body)]).toString("base64url");
    },
    verify(token, now = new Date()) {
      if (typeof token !== "string" || token.length !== RECEIPT_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
      const bytes = Buffer.from(token, "base64url");
      if (bytes.length !== TOKEN_BYTES) return null;
      const body = bytes.subarray(0, ID_BYTES + EXPIRY_BYTES);
      if (!timingSafeEqual(mac(body), bytes.subarray(ID_BYTES + EXPIRY_BYTES))) return null;
      if (body.readUInt32BE(ID_BYTES) * 1000 <= now.getTime()) return null;
      return uuidOf(body.subarray(0, ID_BYTES));
    },
  };
}

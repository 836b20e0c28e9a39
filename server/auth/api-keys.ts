// Service API keys at the door (docs/api.md#service-api-keys): a caller presents its secret in X-API-Key on
// the paths that take keys (/ofrep/*, the producer API) and nowhere else. A secret is `rk_` and 43 base64url
// characters (256 random bits); the database keeps its SHA-256 only, looked up by a unique index.
import { hash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { textArray } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";
import { preparedFor } from "../../db/prepared.js";
import { API_KEY_PREFIX_LENGTH, type ApiKeyScope, apiKeys } from "../../db/schema/index.js";
import { AppError } from "../errors/errors.js";
import { andThen, type NowOrLater } from "../http/now-or-later.js";
import { recalled } from "../memory/feed.js";
import type { IdentityMemory, KeyRecord } from "../memory/identity.js";

export const API_KEY_HEADER = "x-api-key";
const SECRET_PREFIX = "rk_";
/** Announced at a key's revocation (NOTIFY), so every instance ends the streams opened with it. */
export const KEY_REVOKED_CHANNEL = "api_key_revoked";
/** `lastUsedAt` is written at most this often per key. */
export const LAST_USED_INTERVAL_MS = 60_000;
/** How many known keys' secrets keep their hash in memory (apiKeyVerifier). */
const KNOWN_SECRETS = 1024;

export const newSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
// crypto.hash, one call instead of a Hash object per request: the key is hashed on every OFREP and producer
// request, and the object's setup was most of the hash's cost in the profile (issue AE).
export const secretHash = (secret: string) => hash("sha256", secret, "hex");
export const secretPrefix = (secret: string) => secret.slice(0, API_KEY_PREFIX_LENGTH);

/** Why a key was refused: the label of `ofrep_refusals_total` (docs/operators.md#metrics). */
export type KeyRefusalReason = "missing_key" | "unknown_key" | "revoked" | "expired" | "wrong_scope";

/** A refused key: 401, or 403 for a missing scope, with the reason kept for counting. */
export class ApiKeyRefusedError extends AppError {
  constructor(
    readonly reason: KeyRefusalReason,
    message: string,
  ) {
    super(reason === "wrong_scope" ? "FORBIDDEN" : "UNAUTHORIZED", message);
  }
}

/** A key that is known, not revoked and not expired. */
export type VerifiedKey = { id: string; name: string; producer: string; scopes: readonly ApiKeyScope[] };

const keyBySecretHash = preparedFor((db) =>
  db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      producer: apiKeys.producer,
      scopes: apiKeys.scopes,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.secretHash, sql.placeholder("hash")))
    .prepare("api_key_by_secret_hash"),
);

/**
 * Checks keys against the table, and keeps each key's `lastUsedAt` within a minute of its last use without
 * writing on every request: this instance writes it when its own last write is a minute old, and the
 * UPDATE's condition keeps several instances from writing it more than about once a minute between them.
 */
export function apiKeyVerifier(db: Db, onError: (err: unknown) => void, memory?: IdentityMemory) {
  const lastWritten = new Map<string, number>();

  function touch(id: string, lastUsedAt: Date | null, now: number) {
    if (lastUsedAt && now - lastUsedAt.getTime() < LAST_USED_INTERVAL_MS) return;
    if (now - (lastWritten.get(id) ?? 0) < LAST_USED_INTERVAL_MS) return;
    lastWritten.set(id, now);
    db.update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`))))
      .then(() => {}, onError);
  }

  /**
   * The key of this hash: from memory while it can vouch for it (server/memory/identity.ts), then at once and
   * not as a promise (every OFREP and producer request asks; issue AE); else the table. Unknown hashes are not
   * remembered: anyone can send new ones.
   */
  function keyByHash(hash: string): NowOrLater<KeyRecord | undefined> {
    const remembered = recalled(memory, memory?.keys, hash, "api_key");
    return remembered ?? keyInTable(hash);
  }

  async function keyInTable(hash: string): Promise<KeyRecord | undefined> {
    const epoch = memory?.keys.epoch() ?? 0;
    const [key] = await keyBySecretHash(db).execute({ hash });
    if (key) memory?.keys.remember(hash, key, epoch);
    return key;
  }

  // The hashes of working keys' secrets, by secret: hashing cost ~1 µs of each OFREP evaluation's ~50 (issue
  // AE). Only a secret whose key works is kept, so made-up keys cannot churn it; at most KNOWN_SECRETS, then
  // forgotten at once. A hash is the same forever, so this holds no state a revocation could leave stale.
  const hashes = new Map<string, string>();

  /**
   * The key of this secret if it still works, or a 401 naming what is wrong with it. `hashed`: its hash was
   * computed for this request, not found among the kept ones, so a working key's secret keeps it now.
   */
  function checked(secret: string, hash: string, hashed: boolean, key: KeyRecord | undefined): VerifiedKey {
    if (!key) throw new ApiKeyRefusedError("unknown_key", "Unknown API key");
    const now = Date.now();
    if (key.revokedAt) throw new ApiKeyRefusedError("revoked", "This API key was revoked");
    if (key.expiresAt && key.expiresAt.getTime() <= now) throw new ApiKeyRefusedError("expired", "This API key has expired");
    if (hashed) {
      if (hashes.size >= KNOWN_SECRETS) hashes.clear();
      hashes.set(secret, hash);
    }
    touch(key.id, key.lastUsedAt, now);
    return { id: key.id, name: key.name, producer: key.producer, scopes: key.scopes as ApiKeyScope[] };
  }

  /**
   * The key this secret belongs to, or a 401 naming what is wrong with it: at once when memory knows the key,
   * else as a promise. Callers `await` it either way; a refusal may be thrown at once.
   */
  return function verify(secret: string | string[] | undefined): NowOrLater<VerifiedKey> {
    if (typeof secret !== "string" || secret === "") throw new ApiKeyRefusedError("missing_key", "An API key is required (X-API-Key)");
    const kept = hashes.get(secret);
    const hash = kept ?? secretHash(secret);
    const key = keyByHash(hash);
    const hashed = kept === undefined;
    return andThen(key, (found) => checked(secret, hash, hashed, found));
  };
}

export type ApiKeyVerifier = ReturnType<typeof apiKeyVerifier>;

const keyById = preparedFor((db) =>
  db
    .select({ id: apiKeys.id, expiresAt: apiKeys.expiresAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder("id")))
    .prepare("api_key_by_id"),
);

/**
 * The key with this id while it still works (not revoked, not expired), with its expiry: a stream's check at
 * connect, and when the stream must end. Null otherwise.
 */
export async function keyStillValid(db: Db, id: string): Promise<{ expiresAt: Date | null } | null> {
  const [key] = await keyById(db).execute({ id });
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) return null;
  return { expiresAt: key.expiresAt };
}

/**
 * Of these keys, those that still work: the OFREP streams' check after the database's change feed was
 * interrupted, when `api_key_revoked` announcements may have been missed.
 */
export async function keysStillValid(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        sql`${apiKeys.id} = any(${textArray(ids)}::uuid[])`,
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
      ),
    );
  return new Set(rows.map((row) => row.id));
}

/** A verified key without the scope a path needs: 403. */
export function requireScope(key: VerifiedKey, scope: ApiKeyScope): void {
  if (!key.scopes.includes(scope)) throw new ApiKeyRefusedError("wrong_scope", `This API key lacks the ${scope} scope`);
}

// Service API keys for tests: straight into the table (any state: expired, revoked, any scopes), or through
// the admin REST path as a user would.
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client.js";
import { type ApiKeyScope, apiKeys } from "../../db/schema/index.js";
import { newSecret, secretHash, secretPrefix } from "../../server/auth/api-keys.js";

export type TestApiKey = { id: string; secret: string; headers: { "x-api-key": string } };

export async function insertApiKey(
  db: Db,
  options: {
    scopes?: ApiKeyScope[];
    expiresAt?: Date | null;
    revokedAt?: Date | null;
    name?: string;
    producer?: string;
    lastUsedAt?: Date;
  } = {},
): Promise<TestApiKey> {
  const secret = newSecret();
  const name = options.name ?? `test-key-${randomBytes(3).toString("hex")}`;
  const [row] = await db
    .insert(apiKeys)
    .values({
      name,
      producer: options.producer ?? name,
      scopes: options.scopes ?? ["flags:read"],
      prefix: secretPrefix(secret),
      secretHash: secretHash(secret),
      createdById: "test-admin",
      createdByEmail: "test-admin@test.local",
      expiresAt: options.expiresAt ?? null,
      revokedAt: options.revokedAt ?? null,
      lastUsedAt: options.lastUsedAt ?? null,
    })
    .returning({ id: apiKeys.id });
  return { id: row!.id, secret, headers: { "x-api-key": secret } };
}

/** The id of a new working key: the record a revoke cell names. */
export const apiKeyOf = async (db: Db): Promise<string> => (await insertApiKey(db)).id;

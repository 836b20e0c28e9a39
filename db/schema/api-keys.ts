// Service API keys (docs/api.md#service-api-keys): other services of the platform read the restriction and
// send notifications with them. Only the SHA-256 of a secret is stored; the secret is shown once, at creation.
import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { apiKeyScopes } from "./api-key-scopes.js";

export { API_KEY_PREFIX_LENGTH, type ApiKeyScope, apiKeyScopes } from "./api-key-scopes.js";

const tz = { withTimezone: true } as const;

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Unique among keys that are not revoked (api_keys_live_name_idx). */
    name: text("name").notNull(),
    /**
     * Whom the key's producer events belong to: keys sharing it share its eventIds, so a key can be rotated
     * without duplicates (docs/producers.md#sending-notifications-from-a-service). The name unless given.
     */
    producer: text("producer").notNull(),
    scopes: text("scopes").array().notNull(),
    /** The secret's first characters, shown in lists. */
    prefix: text("prefix").notNull(),
    /** Hex SHA-256 of the secret: a secret has 256 random bits, so a fast hash is as safe as a slow one. */
    secretHash: text("secret_hash").notNull(),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
    /** The admin who created it, kept as they were (no foreign key: the key outlives a removed user). */
    createdById: text("created_by_id").notNull(),
    createdByEmail: text("created_by_email").notNull(),
    expiresAt: timestamp("expires_at", tz),
    /** Written at most once a minute per key (server/auth/api-keys.ts). */
    lastUsedAt: timestamp("last_used_at", tz),
    revokedAt: timestamp("revoked_at", tz),
  },
  (t) => [
    uniqueIndex("api_keys_secret_hash_idx").on(t.secretHash),
    // One working key per name, decided by the database so that two creations at once cannot both win.
    uniqueIndex("api_keys_live_name_idx").on(t.name).where(sql`${t.revokedAt} is null`),
    index("api_keys_created_idx").on(t.createdAt.desc()),
    check(
      "api_keys_scopes_known",
      sql`${t.scopes} <@ array[${sql.raw(apiKeyScopes.map((s) => `'${s}'`).join(", "))}]::text[] and cardinality(${t.scopes}) > 0`,
    ),
  ],
);

// Creating, listing and revoking service API keys (docs/api.md#service-api-keys), each change audited in
// its own transaction. The secret is returned once and written nowhere: not the table (its hash only), not
// the audit event, not the logs.
import { desc, eq, sql } from "drizzle-orm";
import { sqlState } from "../../db/errors.js";
import { type ApiKeyScope, apiKeys } from "../../db/schema/index.js";
import { auditSource, recordAudit } from "../audit/record.js";
import { KEY_REVOKED_CHANNEL, newSecret, secretHash, secretPrefix } from "../auth/api-keys.js";
import type { HandlerArgs } from "../context.js";
import { AppError, notFound } from "../errors/errors.js";
import { isUuid } from "../http/text.js";
import type { CreateApiKeyInput } from "./api-key-schemas.js";

const DAY_MS = 86_400_000;

type ApiKeyRow = typeof apiKeys.$inferSelect;

export type ApiKeyView = Omit<ApiKeyRow, "secretHash" | "createdById" | "createdByEmail" | "scopes"> & {
  scopes: ApiKeyScope[];
  createdBy: { id: string; email: string };
};

export const toApiKeyView = ({ secretHash: _hash, createdById, createdByEmail, scopes, ...key }: ApiKeyRow): ApiKeyView => ({
  ...key,
  // The table's check constraint admits only these (db/schema/api-keys.ts).
  scopes: scopes as ApiKeyScope[],
  createdBy: { id: createdById, email: createdByEmail },
});

export async function createApiKey({ ctx, input }: HandlerArgs<CreateApiKeyInput>): Promise<{ apiKey: ApiKeyView; secret: string }> {
  const secret = newSecret();
  const apiKey = await ctx.db
    .transaction(async (tx) => {
      const [row] = await tx
        .insert(apiKeys)
        .values({
          name: input.name,
          producer: input.producer ?? input.name,
          scopes: input.scopes,
          prefix: secretPrefix(secret),
          secretHash: secretHash(secret),
          createdById: ctx.user.id,
          createdByEmail: ctx.user.email,
          expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * DAY_MS) : null,
        })
        .returning();
      const view = toApiKeyView(row!);
      await recordAudit(tx, auditSource(ctx), {
        action: "apikey.create",
        target: { type: "apikey", id: view.id },
        before: null,
        after: view,
      });
      return view;
    })
    .catch((err: unknown) => {
      // The only unique index a new key can meet is its name's among working keys (api_keys_live_name_idx):
      // the secret's hash has 256 random bits. The index decides, so two creations at once cannot both win.
      if (sqlState(err) === "23505") {
        throw new AppError("CONFLICT", `An API key named ${input.name} exists; revoke it first or choose another name`, undefined, err);
      }
      throw err;
    });
  return { apiKey, secret };
}

export async function listApiKeys({ ctx }: HandlerArgs): Promise<{ apiKeys: ApiKeyView[] }> {
  const rows = await ctx.db.select().from(apiKeys).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return { apiKeys: rows.map(toApiKeyView) };
}

/** Revokes a key at once; revoking a revoked key answers it as it is and records nothing. */
export async function revokeApiKey({ ctx, input }: HandlerArgs<{ id: string }>): Promise<{ apiKey: ApiKeyView }> {
  if (!isUuid(input.id)) throw notFound("API key", input.id);
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(apiKeys).where(eq(apiKeys.id, input.id)).for("update");
    if (!before) throw notFound("API key", input.id);
    if (before.revokedAt) return { apiKey: toApiKeyView(before) };
    const [after] = await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, input.id)).returning();
    const view = toApiKeyView(after!);
    await recordAudit(tx, auditSource(ctx), {
      action: "apikey.revoke",
      target: { type: "apikey", id: view.id },
      before: toApiKeyView(before),
      after: view,
    });
    // At commit, every instance ends the event streams opened with this key (server/ofrep/changes.ts).
    await tx.execute(sql`select announce(${KEY_REVOKED_CHANNEL}, array[${view.id}]::text[])`);
    return { apiKey: view };
  });
}

// The caller's notification preferences (docs/api.md#preferences): per category, in-app and push, all on
// until changed. A change is one upsert of the categories it names; the answer is always the whole set.
import { eq, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { CATEGORIES, type Category } from "../../db/categories.js";
import type { DbOrTx } from "../../db/client.js";
import { notificationPreferences } from "../../db/schema/index.js";
import type { HandlerArgs } from "../context.js";
import type { PreferencesPatch } from "./schemas.js";

export type ChannelChoice = { inApp: boolean; push: boolean };
export type Preferences = Record<Category, ChannelChoice>;

/** Every category with its stored choice, or both channels on where none is stored. */
export async function preferencesOf(db: DbOrTx, userId: string): Promise<Preferences> {
  const rows = await db
    .select({ category: notificationPreferences.category, inApp: notificationPreferences.inApp, push: notificationPreferences.push })
    .from(notificationPreferences)
    .where(eq(notificationPreferences.userId, userId));
  const stored = new Map(rows.map((row) => [row.category, { inApp: row.inApp, push: row.push }]));
  return Object.fromEntries(CATEGORIES.map((category) => [category, stored.get(category) ?? { inApp: true, push: true }])) as Preferences;
}

export async function getPreferences({ ctx }: HandlerArgs): Promise<{ preferences: Preferences }> {
  return { preferences: await preferencesOf(ctx.db, ctx.user.id) };
}

/** Changes the categories the patch names, each channel it names; a channel left out keeps its value. */
export async function updatePreferences({ ctx, input }: HandlerArgs<PreferencesPatch>): Promise<{ preferences: Preferences }> {
  return ctx.db.transaction(async (tx) => {
    for (const [category, choice] of Object.entries(input)) {
      if (!choice || (choice.inApp === undefined && choice.push === undefined)) continue;
      const given = (value: boolean | undefined, column: AnyPgColumn) => (value === undefined ? sql`${column}` : sql`${value}`);
      await tx
        .insert(notificationPreferences)
        .values({ userId: ctx.user.id, category, inApp: choice.inApp ?? true, push: choice.push ?? true })
        .onConflictDoUpdate({
          target: [notificationPreferences.userId, notificationPreferences.category],
          set: {
            inApp: given(choice.inApp, notificationPreferences.inApp),
            push: given(choice.push, notificationPreferences.push),
            updatedAt: sql`now()`,
          },
        });
    }
    return { preferences: await preferencesOf(tx, ctx.user.id) };
  });
}

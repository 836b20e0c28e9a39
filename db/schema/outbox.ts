// Changes waiting to be announced (issue V, docs/scaling.md "The change outbox"). On PostgreSQL a writer no
// longer sends NOTIFY inside its own transaction, since a NOTIFY holds a global lock through its commit's disk
// flush and commits that notify cannot share one. The triggers (and a key revocation) add a row here instead,
// a plain insert; one relay per database (db/outbox-relay.ts) announces the rows in batches and deletes them.
// On PGlite nothing is written here: `announce()` notifies at once, in-process (migration 0018).
import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const changeOutbox = pgTable("change_outbox", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  /** The LISTEN channel the payloads go out on: unread_count, session_ended, restriction_flags, api_key_revoked. */
  channel: text("channel").notNull(),
  /** What one statement changed: user ids, session ids, key ids, or history id ranges `from:to`. */
  payloads: text("payloads").array().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

// The request counts every instance on this database shares (docs/api.md#rate-limits): the table
// rate-limiter-flexible's RateLimiterPostgres reads and writes, in exactly the shape it would create itself.
// It is made by a migration so that the service needs no DDL rights at start-up (server/http/rate-limit.ts
// passes tableCreated: true). One row per limit and key: `<limit>:<sha-256 of the key>`, until `expire`.
import { bigint, integer, pgTable, varchar } from "drizzle-orm/pg-core";

export const rateLimits = pgTable("rate_limits", {
  key: varchar("key", { length: 255 }).primaryKey(),
  points: integer("points").notNull().default(0),
  /** When the window ends, in milliseconds since the epoch (the library's clock: Date.now()). */
  expire: bigint("expire", { mode: "number" }),
});

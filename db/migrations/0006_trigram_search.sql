-- The inbox search (docs/api.md#inbox-listing): trigram indexes answer ILIKE '%text%'; btree_gin lets the
-- same GIN index hold user_id, so a search reads only the caller's matching entries. Both extensions ship
-- with PostgreSQL's contrib and with PGlite (loaded in db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
CREATE INDEX "notifications_search_title_idx" ON "notifications" USING gin ("user_id","title" gin_trgm_ops) WHERE "notifications"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "notifications_search_body_idx" ON "notifications" USING gin ("user_id","body" gin_trgm_ops) WHERE "notifications"."deleted_at" is null;
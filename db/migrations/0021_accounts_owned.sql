-- Issue X: accounts are the service's own. A grant-admin request keeps a digest of who its target was when
-- asked (server/accounts/identity.ts); another person at approval makes it stale.
ALTER TABLE "change_requests" ADD COLUMN "target_identity" text;--> statement-breakpoint
-- better-auth's set-role stored any string; only "admin" ever made an admin here, so anything else is a user.
UPDATE "users" SET "role" = 'user' WHERE "role" NOT IN ('user', 'admin');--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_valid" CHECK ("users"."role" in ('user', 'admin'));

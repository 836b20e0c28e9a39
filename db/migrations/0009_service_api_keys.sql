CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"prefix" text NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by_id" text NOT NULL,
	"created_by_email" text NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_scopes_known" CHECK ("api_keys"."scopes" <@ array['flags:read', 'notifications:write']::text[] and cardinality("api_keys"."scopes") > 0)
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_valid";--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_valid";--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash_idx" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "api_keys_created_idx" ON "api_keys" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_valid" CHECK ("audit_events"."action" in ('cohort.create', 'cohort.check_gates', 'cohort.activate', 'cohort.rollback', 'pro.activate', 'pro.rollback', 'notification.test_in_app', 'notification.test_push', 'subscriptions.clear', 'admin.bootstrap', 'user.create', 'user.update', 'user.set_role', 'user.ban', 'user.unban', 'user.set_password', 'user.revoke_sessions', 'user.remove', 'user.impersonate', 'user.stop_impersonating', 'apikey.create', 'apikey.revoke'));--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_valid" CHECK ("audit_events"."target_type" in ('cohort', 'pro', 'user', 'apikey'));--> statement-breakpoint
-- Changes of pros' flags, announced for OFREP's event streams (server/ofrep/changes.ts): one NOTIFY per
-- statement that writes history, whatever number of pros it wrote (a cohort of 500 is one), carrying the
-- range of history ids it wrote; each instance reads the pros of that range once. Delivered at commit.
CREATE FUNCTION "notify_restriction_flags"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('restriction_flags', min(id) || ':' || max(id)) FROM new_rows HAVING count(*) > 0;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "pro_flag_changes_announce" AFTER INSERT ON "pro_flag_changes"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_restriction_flags"();

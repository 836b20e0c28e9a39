CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_id" text NOT NULL,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	"request_id" text,
	CONSTRAINT "audit_events_seq_unique" UNIQUE("seq"),
	CONSTRAINT "audit_events_action_valid" CHECK ("audit_events"."action" in ('cohort.create', 'cohort.check_gates', 'cohort.activate', 'cohort.rollback', 'pro.activate', 'pro.rollback', 'notification.test_in_app', 'notification.test_push', 'subscriptions.clear', 'admin.bootstrap')),
	CONSTRAINT "audit_events_target_type_valid" CHECK ("audit_events"."target_type" in ('cohort', 'pro', 'user'))
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pro_flag_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"pro_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"restriction_active" boolean NOT NULL,
	"previous" boolean NOT NULL,
	"via" text NOT NULL,
	"cohort_id" uuid,
	"audit_event_id" uuid NOT NULL,
	CONSTRAINT "pro_flag_changes_via_valid" CHECK ("pro_flag_changes"."via" in ('pro', 'cohort'))
);
--> statement-breakpoint
CREATE INDEX "audit_events_action_idx" ON "audit_events" USING btree ("action","seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_target_idx" ON "audit_events" USING btree ("target_type","target_id","seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_actor_idx" ON "audit_events" USING btree ("actor_id","seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_user_key_idx" ON "idempotency_keys" USING btree ("user_id","key");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "pro_flag_changes_pro_idx" ON "pro_flag_changes" USING btree ("pro_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "restriction_cohorts_active_pros_idx" ON "restriction_cohorts" USING gin ("pro_ids") WHERE "restriction_cohorts"."status" = 'active';--> statement-breakpoint
-- The audit trail is append-only for every code path, not only the API's: UPDATE and DELETE fail.
CREATE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_events_append_only"();

CREATE TABLE "change_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"cohort_id" uuid NOT NULL,
	"action" text NOT NULL,
	"reason" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_by_id" text NOT NULL,
	"requested_by_email" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"preview" jsonb NOT NULL,
	"decided_by_id" text,
	"decided_by_email" text,
	"decided_at" timestamp with time zone,
	"comment" text,
	"applied_at" timestamp with time zone,
	CONSTRAINT "change_requests_action_valid" CHECK ("change_requests"."action" in ('activate', 'rollback')),
	CONSTRAINT "change_requests_status_valid" CHECK ("change_requests"."status" in ('pending', 'applied', 'stale', 'rejected', 'cancelled', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_valid";--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_valid";--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "details" jsonb;--> statement-breakpoint
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_cohort_id_restriction_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."restriction_cohorts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "change_requests_one_pending_idx" ON "change_requests" USING btree ("cohort_id","action") WHERE "change_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "change_requests_requested_idx" ON "change_requests" USING btree ("requested_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_valid" CHECK ("audit_events"."action" in ('cohort.create', 'cohort.check_gates', 'cohort.activate', 'cohort.rollback', 'pro.activate', 'pro.rollback', 'notification.test_in_app', 'notification.test_push', 'subscriptions.clear', 'admin.bootstrap', 'user.create', 'user.update', 'user.set_role', 'user.ban', 'user.unban', 'user.set_password', 'user.revoke_sessions', 'user.remove', 'user.impersonate', 'user.stop_impersonating', 'apikey.create', 'apikey.revoke', 'change_request.create', 'change_request.approve', 'change_request.reject', 'change_request.cancel'));--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_valid" CHECK ("audit_events"."target_type" in ('cohort', 'pro', 'user', 'apikey', 'change_request'));
-- The admin plugin's acts join the audit trail (user.*), and every event names the admin behind an
-- impersonation session. Adding nullable columns rewrites no row: the append-only trigger is not involved.
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_valid";--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "impersonator_id" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "impersonator_email" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_impersonator_whole" CHECK (("audit_events"."impersonator_id" is null) = ("audit_events"."impersonator_email" is null));--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_valid" CHECK ("audit_events"."action" in ('cohort.create', 'cohort.check_gates', 'cohort.activate', 'cohort.rollback', 'pro.activate', 'pro.rollback', 'notification.test_in_app', 'notification.test_push', 'subscriptions.clear', 'admin.bootstrap', 'user.create', 'user.update', 'user.set_role', 'user.ban', 'user.unban', 'user.set_password', 'user.revoke_sessions', 'user.remove', 'user.impersonate', 'user.stop_impersonating'));
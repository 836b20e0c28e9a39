-- The audit log's actor filters (issue Q): an admin's acts under an impersonation session, and actors by email.
CREATE INDEX "audit_events_impersonator_idx" ON "audit_events" USING btree ("impersonator_id","seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_actor_email_idx" ON "audit_events" USING btree (lower("actor_email"),"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_impersonator_email_idx" ON "audit_events" USING btree (lower("impersonator_email"),"seq" DESC NULLS LAST);
ALTER TABLE "push_deliveries" ADD COLUMN "lease_token" uuid;--> statement-breakpoint
-- Rows of users and subscriptions removed before these foreign keys existed would stop them being added.
DELETE FROM "notification_events" e WHERE NOT EXISTS (SELECT 1 FROM "users" u WHERE u."id" = e."user_id");--> statement-breakpoint
DELETE FROM "push_deliveries" d WHERE NOT EXISTS (SELECT 1 FROM "push_subscriptions" s WHERE s."id" = d."subscription_id");--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_subscription_id_push_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."push_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_events_user_idx" ON "notification_events" USING btree ("user_id","created_at" DESC NULLS LAST,"event_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "push_deliveries_subscription_idx" ON "push_deliveries" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "push_deliveries_created_idx" ON "push_deliveries" USING btree ("created_at");
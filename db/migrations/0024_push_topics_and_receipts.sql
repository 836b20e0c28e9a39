-- Issue AC (push collapse and receipts): RFC 8030 topics, the superseded status, and the display and click
-- times service workers report.
ALTER TABLE "push_deliveries" DROP CONSTRAINT "push_deliveries_status_valid";--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD COLUMN "topic" text;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD COLUMN "displayed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD COLUMN "clicked_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "push_deliveries_topic_idx" ON "push_deliveries" USING btree ("subscription_id","topic") WHERE "push_deliveries"."status" = 'queued' and "push_deliveries"."topic" is not null;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_status_valid" CHECK ("push_deliveries"."status" in ('queued', 'sent', 'failed', 'gone', 'superseded'));
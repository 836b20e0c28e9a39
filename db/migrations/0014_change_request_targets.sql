ALTER TABLE "change_requests" DROP CONSTRAINT "change_requests_action_valid";--> statement-breakpoint
ALTER TABLE "change_requests" ALTER COLUMN "cohort_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "change_requests" ALTER COLUMN "preview" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "change_requests" ADD COLUMN "pro_id" text;--> statement-breakpoint
ALTER TABLE "change_requests" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "change_requests" ADD COLUMN "user_email" text;--> statement-breakpoint
CREATE UNIQUE INDEX "change_requests_one_pending_pro_idx" ON "change_requests" USING btree ("pro_id","action") WHERE "change_requests"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "change_requests_one_pending_user_idx" ON "change_requests" USING btree ("user_id") WHERE "change_requests"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_one_target" CHECK (num_nonnulls("change_requests"."cohort_id", "change_requests"."pro_id", "change_requests"."user_id") = 1 and ("change_requests"."user_id" is not null) = ("change_requests"."action" = 'grant-admin'));--> statement-breakpoint
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_action_valid" CHECK ("change_requests"."action" in ('activate', 'rollback', 'grant-admin'));
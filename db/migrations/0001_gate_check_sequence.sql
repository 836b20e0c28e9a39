DROP INDEX "gate_checks_cohort_latest_idx";--> statement-breakpoint
ALTER TABLE "gate_checks" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "gate_checks_cohort_seq_idx" ON "gate_checks" USING btree ("cohort_id","seq" DESC NULLS LAST);
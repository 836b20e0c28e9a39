CREATE TABLE "audit_checkpoints" (
	"tree_size" bigint PRIMARY KEY NOT NULL,
	"note" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_log_head" (
	"id" smallint PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"root" "bytea" NOT NULL,
	"sealed_at" timestamp with time zone,
	CONSTRAINT "audit_log_head_one_row" CHECK ("audit_log_head"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "audit_log_leaves" (
	"leaf_index" bigint PRIMARY KEY NOT NULL,
	"event_id" uuid NOT NULL,
	CONSTRAINT "audit_log_leaves_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "audit_log_nodes" (
	"level" smallint NOT NULL,
	"idx" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "audit_log_nodes_level_idx_pk" PRIMARY KEY("level","idx")
);
--> statement-breakpoint
CREATE TABLE "audit_unsealed" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_scopes_known";--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_known" CHECK ("api_keys"."scopes" <@ array['flags:read', 'notifications:write', 'audit:read']::text[] and cardinality("api_keys"."scopes") > 0);--> statement-breakpoint
-- The audit log (issue AB, db/schema/audit-log.ts). Every audit event is queued for the sealer by its own
-- insert, in its change's transaction, whatever code path wrote it; the sealer seals what has committed.
CREATE FUNCTION "audit_events_queue_for_seal"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_unsealed (event_id, seq) VALUES (NEW.id, NEW.seq);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_queue_for_seal" AFTER INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_queue_for_seal"();--> statement-breakpoint
-- Events recorded before the log existed are its first leaves, in the order they were written.
INSERT INTO "audit_unsealed" ("event_id", "seq") SELECT "id", "seq" FROM "audit_events";--> statement-breakpoint
-- The empty tree: size 0, root SHA-256 of nothing.
INSERT INTO "audit_log_head" ("id", "size", "root")
  VALUES (1, 0, decode('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex'));--> statement-breakpoint
-- A sealed leaf or node never changes, for every code path: only a superuser who disables the triggers can,
-- and the signed checkpoints kept outside the database show it (docs/guarantees.md "Audit log").
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_leaves_append_only" BEFORE UPDATE OR DELETE ON "audit_log_leaves"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_log_nodes_append_only" BEFORE UPDATE OR DELETE ON "audit_log_nodes"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();

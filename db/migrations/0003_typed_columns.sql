-- notifications.data becomes jsonb. Stored text that is not JSON cannot be kept as JSON: it becomes null,
-- which is what the API already showed for it.
CREATE FUNCTION "rn_text_to_jsonb"(value text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN value::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;--> statement-breakpoint
ALTER TABLE "notifications" ALTER COLUMN "data" SET DATA TYPE jsonb USING "rn_text_to_jsonb"("data");--> statement-breakpoint
DROP FUNCTION "rn_text_to_jsonb"(text);--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_category_valid" CHECK ("notifications"."category" in ('messages', 'leads', 'reviews', 'billing', 'account', 'system'));

-- Changes that live streams follow (docs/api.md#live-unread-count), announced by the database itself so that
-- every code path counts and every instance hears it. NOTIFY is delivered at commit, once per distinct
-- payload per transaction: a statement that changes many rows of one user announces that user once.
CREATE FUNCTION "notify_unread_count_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('unread_count', user_id) FROM (SELECT DISTINCT user_id FROM new_rows) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE FUNCTION "notify_unread_count_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('unread_count', user_id) FROM (SELECT DISTINCT user_id FROM new_rows) AS changed;
  PERFORM pg_notify('unread_count', user_id) FROM (SELECT DISTINCT user_id FROM old_rows) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE FUNCTION "notify_unread_count_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('unread_count', user_id) FROM (SELECT DISTINCT user_id FROM old_rows) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "notifications_unread_count_insert" AFTER INSERT ON "notifications"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_unread_count_insert"();--> statement-breakpoint
CREATE TRIGGER "notifications_unread_count_update" AFTER UPDATE ON "notifications"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_unread_count_update"();--> statement-breakpoint
CREATE TRIGGER "notifications_unread_count_delete" AFTER DELETE ON "notifications"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_unread_count_delete"();--> statement-breakpoint
-- A session that ends (sign-out, revocation, cleanup) closes the streams it opened.
CREATE FUNCTION "notify_session_ended"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('session_ended', old.id);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "sessions_ended" AFTER DELETE ON "sessions" FOR EACH ROW EXECUTE FUNCTION "notify_session_ended"();

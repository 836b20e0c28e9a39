CREATE TABLE "change_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "change_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"channel" text NOT NULL,
	"payloads" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Announcements leave the writer's transaction (issue V, docs/scaling.md "The change outbox"). A NOTIFY takes
-- PostgreSQL's one notify lock at commit and holds it through the commit's disk flush, so commits that notify
-- run one at a time: ~400 a second here against ~2,500 without. Every announcement now goes through
-- announce(): on PostgreSQL it adds one row to change_outbox, a plain insert that commits can share a flush
-- with, and one relay per database (db/outbox-relay.ts) sends the rows in batches. PGlite is one process with
-- no flush to share: it starts with `-c rn.announce=notify` (db/client.ts) and notifies at once, as before.
-- Either way a payload on the wire is a JSON array of what changed, so a batch is one NOTIFY.
ALTER TABLE "change_outbox" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);--> statement-breakpoint
CREATE FUNCTION "announce"(channel text, payloads text[]) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(payloads), 0) = 0 THEN
    RETURN 0;
  END IF;
  IF current_setting('rn.announce', true) = 'notify' THEN
    -- One NOTIFY per item, as before the outbox: a long list could pass NOTIFY's 8000-byte limit.
    PERFORM pg_notify(channel, json_build_array(item)::text) FROM unnest(payloads) AS item;
  ELSE
    INSERT INTO change_outbox (channel, payloads) VALUES (channel, payloads);
  END IF;
  RETURN cardinality(payloads);
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "notification_counts_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced int;
BEGIN
  WITH delta AS (
    SELECT user_id, category, count(*)::int AS total, count(*) FILTER (WHERE read_at IS NULL)::int AS unread
    FROM new_rows WHERE deleted_at IS NULL GROUP BY user_id, category
  ), applied AS (
    INSERT INTO notification_counts AS c (user_id, category, total, unread)
    SELECT user_id, category, total, unread FROM delta ORDER BY user_id, category
    ON CONFLICT (user_id, category) DO UPDATE SET total = c.total + excluded.total, unread = c.unread + excluded.unread
  )
  SELECT announce('unread_count', array_agg(user_id)) INTO announced FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "notification_counts_update"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced int;
BEGIN
  WITH delta AS (
    SELECT user_id, category, sum(total)::int AS total, sum(unread)::int AS unread
    FROM (
      SELECT user_id, category, 1 AS total, (read_at IS NULL)::int AS unread FROM new_rows WHERE deleted_at IS NULL
      UNION ALL
      SELECT user_id, category, -1, -(read_at IS NULL)::int FROM old_rows WHERE deleted_at IS NULL
    ) AS changes
    GROUP BY user_id, category
    HAVING sum(total) <> 0 OR sum(unread) <> 0
  ), applied AS (
    INSERT INTO notification_counts AS c (user_id, category, total, unread)
    SELECT user_id, category, total, unread FROM delta ORDER BY user_id, category
    ON CONFLICT (user_id, category) DO UPDATE SET total = c.total + excluded.total, unread = c.unread + excluded.unread
  )
  SELECT announce('unread_count', array_agg(user_id)) INTO announced FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "notification_counts_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced int;
BEGIN
  WITH delta AS (
    SELECT user_id, category, count(*)::int AS total, count(*) FILTER (WHERE read_at IS NULL)::int AS unread
    FROM old_rows WHERE deleted_at IS NULL GROUP BY user_id, category
  ), locked AS (
    SELECT c.user_id, c.category, d.total, d.unread
    FROM notification_counts c JOIN delta d USING (user_id, category)
    ORDER BY c.user_id, c.category FOR UPDATE OF c
  ), applied AS (
    UPDATE notification_counts c SET total = c.total - l.total, unread = c.unread - l.unread
    FROM locked l WHERE c.user_id = l.user_id AND c.category = l.category
  )
  SELECT announce('unread_count', array_agg(user_id)) INTO announced FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "notification_counts_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced int;
BEGIN
  WITH cleared AS (DELETE FROM notification_counts RETURNING user_id, unread)
  SELECT announce('unread_count', array_agg(user_id)) INTO announced FROM (SELECT user_id FROM cleared GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "notify_restriction_flags"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM announce('restriction_flags', ARRAY[min(id) || ':' || max(id)]) FROM new_rows HAVING count(*) > 0;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- Once per statement rather than per row: ending all of a user's sessions is one announcement.
DROP TRIGGER "sessions_ended" ON "sessions";--> statement-breakpoint
DROP FUNCTION "notify_session_ended"();--> statement-breakpoint
CREATE FUNCTION "announce_sessions_ended"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM announce('session_ended', array_agg(id)) FROM old_rows;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "sessions_ended" AFTER DELETE ON "sessions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_sessions_ended"();

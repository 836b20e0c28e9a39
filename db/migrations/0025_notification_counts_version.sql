CREATE SEQUENCE "public"."notification_counts_version" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
ALTER TABLE "notification_counts" ADD COLUMN "version" bigint DEFAULT nextval('notification_counts_version') NOT NULL;--> statement-breakpoint
-- Every change of a counts row takes a fresh version, and so does a change of the title or body of a visible
-- notification (which moves no count). A user's versions then name one state of their visible notifications:
-- equal versions in two snapshots mean nothing a search could find changed in between (the search totals,
-- server/memory/search-totals.ts). Otherwise as in migration 0018.
CREATE OR REPLACE FUNCTION "notification_counts_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced int;
BEGIN
  WITH delta AS (
    SELECT user_id, category, count(*)::int AS total, count(*) FILTER (WHERE read_at IS NULL)::int AS unread
    FROM new_rows WHERE deleted_at IS NULL GROUP BY user_id, category
  ), applied AS (
    INSERT INTO notification_counts AS c (user_id, category, total, unread)
    SELECT user_id, category, total, unread FROM delta ORDER BY user_id, category
    ON CONFLICT (user_id, category) DO UPDATE
      SET total = c.total + excluded.total, unread = c.unread + excluded.unread, version = excluded.version
  )
  SELECT announce('unread_count', array_agg(user_id)) INTO announced FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- A row's text is compared by grouping each notification with its id, title and body: a rewritten one is
-- two groups (+1 and -1) that do not cancel, while marking it read is one group with a net total of 0.
CREATE OR REPLACE FUNCTION "notification_counts_update"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced int;
BEGIN
  WITH per_row AS (
    SELECT user_id, category, sum(total)::int AS total, sum(unread)::int AS unread
    FROM (
      SELECT user_id, category, id, title, body, 1 AS total, (read_at IS NULL)::int AS unread FROM new_rows WHERE deleted_at IS NULL
      UNION ALL
      SELECT user_id, category, id, title, body, -1, -(read_at IS NULL)::int FROM old_rows WHERE deleted_at IS NULL
    ) AS changes
    GROUP BY user_id, category, id, title, body
  ), delta AS (
    SELECT user_id, category, sum(total)::int AS total, sum(unread)::int AS unread
    FROM per_row
    GROUP BY user_id, category
    HAVING bool_or(total <> 0) OR sum(unread) <> 0
  ), applied AS (
    INSERT INTO notification_counts AS c (user_id, category, total, unread)
    SELECT user_id, category, total, unread FROM delta ORDER BY user_id, category
    ON CONFLICT (user_id, category) DO UPDATE
      SET total = c.total + excluded.total, unread = c.unread + excluded.unread, version = excluded.version
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
    UPDATE notification_counts c
    SET total = c.total - l.total, unread = c.unread - l.unread, version = nextval('notification_counts_version')
    FROM locked l WHERE c.user_id = l.user_id AND c.category = l.category
  )
  SELECT announce('unread_count', array_agg(user_id)) INTO announced FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;

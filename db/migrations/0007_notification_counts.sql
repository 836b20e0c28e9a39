CREATE TABLE "notification_counts" (
	"user_id" text NOT NULL,
	"category" text NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"unread" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "notification_counts_pkey" PRIMARY KEY("user_id","category")
);
--> statement-breakpoint
ALTER TABLE "notification_counts" ADD CONSTRAINT "notification_counts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The counts (docs/scaling.md, "Counts") follow every change to notifications from statement triggers, in the
-- same transaction, whichever code path writes (seeds and raw SQL included). Each statement makes one pass
-- over its transition tables: the net change per (user, category), applied in key order so that concurrent
-- statements lock counts rows in the same order and cannot deadlock on them; then one NOTIFY per user whose
-- unread count moved (delivered at commit, once per user per transaction), which the live streams follow.
-- They replace migration 0004's triggers, which announced every changed user.
DROP TRIGGER "notifications_unread_count_insert" ON "notifications";--> statement-breakpoint
DROP TRIGGER "notifications_unread_count_update" ON "notifications";--> statement-breakpoint
DROP TRIGGER "notifications_unread_count_delete" ON "notifications";--> statement-breakpoint
DROP FUNCTION "notify_unread_count_insert"();--> statement-breakpoint
DROP FUNCTION "notify_unread_count_update"();--> statement-breakpoint
DROP FUNCTION "notify_unread_count_delete"();--> statement-breakpoint
CREATE FUNCTION "notification_counts_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE notified int;
BEGIN
  WITH delta AS (
    SELECT user_id, category, count(*)::int AS total, count(*) FILTER (WHERE read_at IS NULL)::int AS unread
    FROM new_rows WHERE deleted_at IS NULL GROUP BY user_id, category
  ), applied AS (
    INSERT INTO notification_counts AS c (user_id, category, total, unread)
    SELECT user_id, category, total, unread FROM delta ORDER BY user_id, category
    ON CONFLICT (user_id, category) DO UPDATE SET total = c.total + excluded.total, unread = c.unread + excluded.unread
  )
  SELECT count(pg_notify('unread_count', user_id)) INTO notified
  FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- An update may show, hide, read or unread rows (or move them between users and categories): new rows
-- count +1, old rows -1. Changes that cancel out (marking a read notification read) write nothing.
CREATE FUNCTION "notification_counts_update"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE notified int;
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
  SELECT count(pg_notify('unread_count', user_id)) INTO notified
  FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- Only existing rows are updated, never inserted: a user's deletion cascades to both tables, and a counts row
-- inserted after its cascade would outlive the user (or fail the foreign key). Rows are locked in key order
-- first, as the upserts above take them.
CREATE FUNCTION "notification_counts_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE notified int;
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
  SELECT count(pg_notify('unread_count', user_id)) INTO notified
  FROM (SELECT user_id FROM delta GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- Seeds empty the table with TRUNCATE, which row and statement DELETE triggers do not see.
CREATE FUNCTION "notification_counts_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE notified int;
BEGIN
  WITH cleared AS (DELETE FROM notification_counts RETURNING user_id, unread)
  SELECT count(pg_notify('unread_count', user_id)) INTO notified
  FROM (SELECT user_id FROM cleared GROUP BY user_id HAVING sum(unread) <> 0) AS changed;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "notifications_counts_insert" AFTER INSERT ON "notifications"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notification_counts_insert"();--> statement-breakpoint
CREATE TRIGGER "notifications_counts_update" AFTER UPDATE ON "notifications"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notification_counts_update"();--> statement-breakpoint
CREATE TRIGGER "notifications_counts_delete" AFTER DELETE ON "notifications"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "notification_counts_delete"();--> statement-breakpoint
CREATE TRIGGER "notifications_counts_truncate" AFTER TRUNCATE ON "notifications"
  FOR EACH STATEMENT EXECUTE FUNCTION "notification_counts_truncate"();--> statement-breakpoint
-- The rows already there. Writers wait: the triggers above hold a lock on notifications until this commits.
INSERT INTO "notification_counts" ("user_id", "category", "total", "unread")
SELECT "user_id", "category", count(*), count(*) FILTER (WHERE "read_at" IS NULL)
FROM "notifications" WHERE "deleted_at" IS NULL GROUP BY "user_id", "category";

-- Why an event queued no push (issue U.9): the user turned push off for its category, the service has no VAPID
-- keys, or the user had no active subscription; the Deliveries view and GET /api/notifications/events/:id
-- could not tell these apart. Recorded at ingest from now on; events received before stay null (unknown).
ALTER TABLE "notification_events" ADD COLUMN "no_push" text;--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_no_push_valid" CHECK ("notification_events"."no_push" in ('push_off', 'push_not_configured', 'no_subscription'));

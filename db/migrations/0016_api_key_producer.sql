-- A key's producer (its eventIds' namespace) was its name: existing keys keep it, so no event changes hands.
ALTER TABLE "api_keys" ADD COLUMN "producer" text;--> statement-breakpoint
UPDATE "api_keys" SET "producer" = "name";--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "producer" SET NOT NULL;--> statement-breakpoint
-- Working keys that shared a name keep their producer; all but the oldest get their id's start appended to
-- the name, so the name becomes unique among working keys.
UPDATE "api_keys" AS k SET "name" = k."name" || ' (' || left(k."id"::text, 8) || ')'
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "name" ORDER BY "created_at", "id") AS n
  FROM "api_keys" WHERE "revoked_at" IS NULL
) AS d
WHERE d."id" = k."id" AND d.n > 1;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_live_name_idx" ON "api_keys" USING btree ("name") WHERE "api_keys"."revoked_at" is null;

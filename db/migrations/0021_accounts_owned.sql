-- Issue X: accounts are the service's own (server/accounts/). Who chose a user's password, when an admin did;
-- a grant-admin request's digest of who its target was when asked; roles that are user or admin only.
CREATE TABLE "password_chosen_by" (
	"user_id" text PRIMARY KEY NOT NULL,
	"admin_id" text NOT NULL,
	"chosen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "change_requests" ADD COLUMN "target_identity" text;--> statement-breakpoint
ALTER TABLE "password_chosen_by" ADD CONSTRAINT "password_chosen_by_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- better-auth's set-role stored any string; only "admin" ever made an admin here, so anything else is a user.
UPDATE "users" SET "role" = 'user' WHERE "role" NOT IN ('user', 'admin');--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_valid" CHECK ("users"."role" in ('user', 'admin'));--> statement-breakpoint
-- better-auth's refresh of an impersonation session (held at its hour by 0017) still wrote updated_at on
-- every call that read the session, a refused one included: the refresh that changes nothing now writes nothing.
CREATE OR REPLACE FUNCTION sessions_impersonation_never_extends() RETURNS trigger AS $$
BEGIN
  IF OLD.impersonated_by IS NOT NULL AND NEW.expires_at > OLD.expires_at THEN
    NEW.expires_at := OLD.expires_at;
    NEW.updated_at := OLD.updated_at;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

-- What an instance's memory follows (issue W, server/memory/): every write of a pro's stored status, and
-- every change to a user or a session that the caller's identity is read from. Announced per statement with
-- announce() (0018), so a cohort of 500 pros is one announcement, and writes made outside the service (raw
-- SQL, seeds, a cohort deleted and its pros' cohort_id set null) are announced as the service's own are.
CREATE FUNCTION "announce_pro_status"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce('pro_status', array_agg(DISTINCT pro_id)) FROM old_rows;
  ELSE
    PERFORM announce('pro_status', array_agg(DISTINCT pro_id)) FROM new_rows;
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "pro_status_inserted" AFTER INSERT ON "pro_restriction_status"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_pro_status"();--> statement-breakpoint
CREATE TRIGGER "pro_status_updated" AFTER UPDATE ON "pro_restriction_status"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_pro_status"();--> statement-breakpoint
CREATE TRIGGER "pro_status_deleted" AFTER DELETE ON "pro_restriction_status"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_pro_status"();--> statement-breakpoint
-- A user's name, email, role or ban, or the user gone: the identity a request is answered as.
CREATE FUNCTION "announce_user_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce('user_changed', array_agg(id)) FROM old_rows;
  ELSE
    PERFORM announce('user_changed', array_agg(n.id)) FROM new_rows n JOIN old_rows o USING (id)
      WHERE (n.name, n.email, n.role, n.banned, n.ban_expires) IS DISTINCT FROM (o.name, o.email, o.role, o.banned, o.ban_expires);
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "user_changed" AFTER UPDATE ON "users"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_user_changed"();--> statement-breakpoint
CREATE TRIGGER "user_deleted" AFTER DELETE ON "users"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_user_changed"();--> statement-breakpoint
-- A session's token, owner or expiry changed (better-auth's daily refresh, or by hand), by its id (never its
-- token: any role connected to the database may LISTEN); its end is 0018's `session_ended`.
CREATE FUNCTION "announce_session_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM announce('session_changed', array_agg(o.id)) FROM new_rows n JOIN old_rows o USING (id)
    WHERE (n.token, n.user_id, n.expires_at, n.impersonated_by) IS DISTINCT FROM (o.token, o.user_id, o.expires_at, o.impersonated_by);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "session_changed" AFTER UPDATE ON "sessions"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_session_changed"();
--> statement-breakpoint
-- A key changed in any way but its last use (revoked, expired, rescoped, by the service or by hand), or
-- deleted: the keys an instance remembers are checked again.
CREATE FUNCTION "announce_api_key_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce('api_key_changed', array_agg(id::text)) FROM old_rows;
  ELSE
    PERFORM announce('api_key_changed', array_agg(n.id::text)) FROM new_rows n JOIN old_rows o USING (id)
      WHERE (n.secret_hash, n.scopes, n.expires_at, n.revoked_at, n.name, n.producer)
        IS DISTINCT FROM (o.secret_hash, o.scopes, o.expires_at, o.revoked_at, o.name, o.producer);
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "api_key_changed" AFTER UPDATE ON "api_keys"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_api_key_changed"();--> statement-breakpoint
CREATE TRIGGER "api_key_deleted" AFTER DELETE ON "api_keys"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "announce_api_key_changed"();

-- An impersonation session (better-auth's admin plugin: impersonated_by set) ends at the time it was given.
-- better-auth refreshes any session that is due, on get-session and on every call that reads the session,
-- which would stretch the impersonation's hour to the 7 days of a session of the user's own. Held here,
-- below every path that may update a session: its expiry may move earlier, never later.
CREATE FUNCTION sessions_impersonation_never_extends() RETURNS trigger AS $$
BEGIN
  IF OLD.impersonated_by IS NOT NULL AND NEW.expires_at > OLD.expires_at THEN
    NEW.expires_at := OLD.expires_at;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER sessions_impersonation_never_extends BEFORE UPDATE OF expires_at ON sessions
  FOR EACH ROW EXECUTE FUNCTION sessions_impersonation_never_extends();

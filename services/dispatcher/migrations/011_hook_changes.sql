-- Hook changes as notifications: a new event's deliveries are signed when the event is taken in,
-- with the hook's state read then (fan-out.ts), and sent with it only if no hook changed meanwhile
-- (hook-changes.ts). Counters (written with every recorded attempt) do not notify.
CREATE FUNCTION notify_hook_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('dispatcher_hook_changed', COALESCE(NEW.id, OLD.id));
  RETURN NULL;
END $$;

CREATE TRIGGER hooks_changed AFTER UPDATE OF status, url, secret_sealed, active_since, ordering, on_kind ON hooks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.url IS DISTINCT FROM NEW.url
                     OR OLD.secret_sealed IS DISTINCT FROM NEW.secret_sealed OR OLD.active_since IS DISTINCT FROM NEW.active_since
                     OR OLD.ordering IS DISTINCT FROM NEW.ordering OR OLD.on_kind IS DISTINCT FROM NEW.on_kind)
  EXECUTE FUNCTION notify_hook_changed();
CREATE TRIGGER hooks_deleted AFTER DELETE ON hooks FOR EACH ROW EXECUTE FUNCTION notify_hook_changed();

-- Presence that survives crashes and works with many replicas: each gateway process registers an
-- instance with a lease it renews on a heartbeat, and counts its live sessions under its own id.
-- A device is connected while a session of an instance with an unexpired lease exists; a killed
-- replica's sessions stop counting when its lease runs out, and the next replica to notice
-- deletes them. This replaces the one shared counter, which a crash left "connected" for ever.
CREATE TABLE gateway_instances (
  id          text PRIMARY KEY,
  started_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);

CREATE TABLE device_sessions (
  tenant_id    text NOT NULL,
  device_id    text NOT NULL,
  instance_id  text NOT NULL,
  connections  integer NOT NULL CHECK (connections > 0),
  PRIMARY KEY (tenant_id, device_id, instance_id)
);
CREATE INDEX device_sessions_instance ON device_sessions (instance_id);

ALTER TABLE devices DROP COLUMN connections;

-- Device sessions, owned by the gateway. A device is (tenant, MQTT username); `connections`
-- counts its live sessions on every gateway replica, so two sessions of one device stay honest.
CREATE TABLE devices (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL,
  device_id     text NOT NULL,
  token_id      text NOT NULL,
  connections   integer NOT NULL DEFAULT 0 CHECK (connections >= 0),
  last_seen_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT devices_tenant_device UNIQUE (tenant_id, device_id)
);
CREATE INDEX devices_tenant_id ON devices (tenant_id, id DESC);

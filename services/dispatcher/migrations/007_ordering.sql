-- Per-entity ordered delivery (opt-in per hook): the deliveries of a `perEntity` hook wait here,
-- one queue per (hook, entity), in the order their events occurred (time, then position in the
-- EVENTS stream). Only the head of a queue is out for delivery; finishing it (delivered, or its
-- attempts exhausted, or dropped) removes it and sends the next.
ALTER TABLE hooks ADD COLUMN ordering text NOT NULL DEFAULT 'none' CHECK (ordering IN ('none', 'perEntity'));

CREATE TABLE ordered_deliveries (
  hook_id      text NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  entity       text NOT NULL,
  event_time   timestamptz NOT NULL,
  stream_seq   bigint NOT NULL,
  delivery_id  text NOT NULL UNIQUE,
  -- The delivery message (JSON text), sent as it is when it reaches the head.
  delivery     text NOT NULL,
  queued_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (hook_id, entity, event_time, stream_seq)
);

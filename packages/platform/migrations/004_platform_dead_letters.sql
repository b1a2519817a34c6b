-- Dead letters: messages a consumer gave up on (invalid, or failing every delivery up to its
-- bound), kept with the error so an operator can see why and replay them once fixed.
CREATE TABLE dead_letters (
  id          bigserial PRIMARY KEY,
  consumer    text NOT NULL,
  stream      text NOT NULL,
  subject     text NOT NULL,
  message_id  text,
  headers     jsonb NOT NULL DEFAULT '{}'::jsonb,
  payload     text NOT NULL,
  error       text NOT NULL,
  deliveries  integer NOT NULL,
  dead_at     timestamptz NOT NULL DEFAULT now(),
  replayed_at timestamptz
);
CREATE INDEX dead_letters_waiting ON dead_letters (id) WHERE replayed_at IS NULL;

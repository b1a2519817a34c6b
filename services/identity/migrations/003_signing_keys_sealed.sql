-- Session signing keys are sealed at rest under IDENTITY_SECRET_KEY (AES-256-GCM, bound to the
-- key id), like hook secrets. Rows from before keep private_pem until identity's next start seals
-- them and clears it (session-keys.ts), under the same lock that creates keys.
ALTER TABLE signing_keys ADD COLUMN private_sealed text;
ALTER TABLE signing_keys ALTER COLUMN private_pem DROP NOT NULL;

-- The first answer of a write that books or claims time (v2 confirm, v1 create and reschedule, a hold sent with an
-- Idempotency-Key), written in the transaction (or the one statement) of the write itself: a retry with the same key
-- finds it even when Redis lost its copy (a loss inside the appendfsync window) or the process died between COMMIT and
-- its Redis write. The key is kept only as its SHA-256; `answer` is json (not jsonb) so the replay is the same text.
-- Kept 24 hours (CONTRACT part 4): readers ignore older rows, a worker deletes them in bounded batches.
CREATE TABLE idempotency_answers (
  organization_id text NOT NULL,
  endpoint text NOT NULL,
  key_hash text NOT NULL,
  payload_hash text NOT NULL,
  answer json NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, endpoint, key_hash)
);
CREATE INDEX idempotency_answers_created ON idempotency_answers (created_at);

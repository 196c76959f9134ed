-- The audit hash chain leaves the request path. An audit append is a plain INSERT (no trigger, no lock); the
-- sequencer (src/workers/audit-sequencer.ts) links committed events into audit_chain in batches shortly after.
--
-- audit_events.txid is the inserting transaction's id. Every transaction whose id is below the xmin of a fresh
-- snapshot has finished, so events with txid below it are final: the sequencer links them in (txid, seq) order.
-- The column has no default while it is added, so the existing rows keep NULL (no rewrite, no UPDATE); they were
-- chained by migration 0003's trigger and are copied into audit_chain below as they are.

DROP TRIGGER audit_events_chain ON audit_events;
DROP FUNCTION audit_events_chain();
DROP TABLE audit_chain_heads;

ALTER TABLE audit_events ADD COLUMN txid xid8;
ALTER TABLE audit_events ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
-- The sequencer's scan: events after its cursor and below the horizon, in (txid, seq) order.
CREATE INDEX audit_events_txid ON audit_events (txid, seq);

-- One link per event: its place in its organization's chain and
--   hash = sha256(prev_hash || '\n' || canonical JSON of the event as stored)   (auditHash in audit-log.ts)
-- The links are append-only like the events.
CREATE TABLE audit_chain (
  organization_id text NOT NULL,
  position bigint NOT NULL CHECK (position > 0),
  event_seq bigint NOT NULL,
  event_id text NOT NULL UNIQUE,
  txid xid8,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  linked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, position)
);
-- The sequencer's cursor: the (txid, event_seq) of the last event it linked.
CREATE INDEX audit_chain_cursor ON audit_chain (txid, event_seq);

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_chain_no_update BEFORE UPDATE OR DELETE ON audit_chain
  FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_chain_no_truncate BEFORE TRUNCATE ON audit_chain
  FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();

-- The chain so far, link for link: migration 0003 took seq under the head's lock, so seq order is chain order.
INSERT INTO audit_chain (organization_id, position, event_seq, event_id, txid, prev_hash, hash)
  SELECT organization_id, row_number() OVER (PARTITION BY organization_id ORDER BY seq), seq, id, NULL, prev_hash, hash
  FROM audit_events;

-- The links now live in audit_chain only: a second, half-filled copy in audit_events would be a place where the
-- chain seems to live but no longer does. DROP COLUMN changes the catalog only; no row is rewritten or updated.
ALTER TABLE audit_events DROP COLUMN prev_hash, DROP COLUMN hash, DROP COLUMN chain_body;

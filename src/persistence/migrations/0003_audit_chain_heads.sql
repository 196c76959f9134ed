-- The audit hash chain is extended by a trigger under a row lock on the organization's chain head, so appending
-- an audit event is a single INSERT (no advisory lock and read of the last hash from the application).
-- The application sends the event's canonical JSON in the transient column chain_body; the trigger computes
--   hash = sha256(prev_hash || '\n' || chain_body)
-- exactly as the verifier does, assigns seq in chain order (under the lock) and stores chain_body as NULL.

CREATE TABLE audit_chain_heads (
  organization_id text PRIMARY KEY,
  hash text NOT NULL
);
INSERT INTO audit_chain_heads (organization_id, hash)
  SELECT DISTINCT ON (organization_id) organization_id, hash FROM audit_events ORDER BY organization_id, seq DESC;

ALTER TABLE audit_events ADD COLUMN chain_body text;

CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  prev text;
BEGIN
  IF NEW.chain_body IS NULL THEN
    RAISE EXCEPTION 'audit_events: chain_body is required to extend the chain' USING ERRCODE = 'not_null_violation';
  END IF;
  SELECT hash INTO prev FROM audit_chain_heads WHERE organization_id = NEW.organization_id FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO audit_chain_heads (organization_id, hash) VALUES (NEW.organization_id, repeat('0', 64)) ON CONFLICT (organization_id) DO NOTHING;
    SELECT hash INTO prev FROM audit_chain_heads WHERE organization_id = NEW.organization_id FOR UPDATE;
  END IF;
  -- seq is taken under the head's lock, so seq order is chain order.
  NEW.seq := nextval('audit_events_seq_seq');
  NEW.prev_hash := prev;
  NEW.hash := encode(sha256(convert_to(prev || E'\n' || NEW.chain_body, 'UTF8')), 'hex');
  NEW.chain_body := NULL;
  UPDATE audit_chain_heads SET hash = NEW.hash WHERE organization_id = NEW.organization_id;
  RETURN NEW;
END;
$$;
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_chain();

-- Heads are only moved by the chain trigger.
CREATE TRIGGER audit_chain_heads_no_delete BEFORE DELETE ON audit_chain_heads
  FOR EACH ROW EXECUTE FUNCTION audit_events_immutable();

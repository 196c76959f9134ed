-- A queued waitlist offer job wakes the offer workers (LISTEN waitlist_offer_jobs) when its transaction commits, so an
-- offer follows a cancellation without waiting for the next poll; the poll stays as the safety net (a notification is
-- lost while a listener reconnects). PostgreSQL folds identical notifications of one transaction into one.
CREATE FUNCTION notify_waitlist_offer_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('waitlist_offer_jobs', '');
  RETURN NULL;
END $$;
CREATE TRIGGER waitlist_offer_jobs_queued AFTER INSERT ON waitlist_offer_jobs
  FOR EACH ROW EXECUTE FUNCTION notify_waitlist_offer_job();

-- The instants the booking machine records in its context (confirmedAt, rescheduledAt, completedAt) are kept on the
-- ledger row beside cancelled_at, so a context rebuilt from the row carries them. Written by the same statements that
-- store the machine's state (the insert of a new booking, writeBookingState).
ALTER TABLE bookings ADD COLUMN confirmed_at timestamptz, ADD COLUMN rescheduled_at timestamptz, ADD COLUMN completed_at timestamptz;

-- Existing rows get what their columns already tell exactly: a v2 booking was confirmed at its creation; a v1 booking
-- still confirmed was last changed by its confirmation; a rescheduled booking by its reschedule (a final state); a
-- completed one completed at its end time. A v1 booking confirmed and then cancelled or completed keeps NULL: its
-- confirmation time was overwritten.
UPDATE bookings SET
  confirmed_at = CASE WHEN source = 'v2' THEN created_at WHEN status = 'confirmed' THEN updated_at END,
  rescheduled_at = CASE WHEN status = 'rescheduled' THEN updated_at END,
  completed_at = CASE WHEN status = 'completed' THEN end_at END;

-- Resolutions read the open-booking workload of their eligible providers only.
CREATE INDEX bookings_open_by_provider ON bookings (organization_id, provider_id, end_at) WHERE status IN ('pending', 'confirmed');

-- Network adequacy (GET /api/v2/analytics/network-adequacy, CONTRACT part 8): what each resolution asked for. One row per
-- value its constraints named in the five dimensions (language, license_region, insurance, specialty, modality), written
-- in the statement that stores the resolution, with the outcome the endpoint aggregates: zero results or not, days from
-- creation to its first option's start, and its exclusionSummary as two parallel arrays. The index answers an
-- organization's dimension over a period as one range scan, in created_at order, with every aggregated column but the
-- exclusion arrays in the index itself.
CREATE TABLE resolution_demands (
  resolution_id text NOT NULL,
  platform_id text NOT NULL,
  organization_id text NOT NULL,
  dimension text NOT NULL CHECK (dimension IN ('language', 'license_region', 'insurance', 'specialty', 'modality')),
  value text NOT NULL,
  created_at timestamptz NOT NULL,
  zero_results boolean NOT NULL,
  days_to_first_option double precision,
  exclusion_codes text[] NOT NULL,
  exclusion_counts integer[] NOT NULL
);
CREATE INDEX resolution_demands_by_period ON resolution_demands (organization_id, dimension, created_at)
  INCLUDE (value, zero_results, days_to_first_option);

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

-- Daily rollups of resolution_demands, per organization, dimension, UTC day and value, made when network adequacy is
-- first read over a day that is over (an hour past its end), so a read sums at most 90 days of rollups and scans raw
-- rows only for the partial days at either end of its period. `resolution_demand_days_done` marks the days rolled up
-- (a day without demand has no other row). Waits are kept as a histogram: bucket k holds days to the first option d
-- with floor(ln(1 + 24 d) / ln(1.05)) = k (5% wide), from which the median and p90 are interpolated.
CREATE TABLE resolution_demand_days (
  organization_id text NOT NULL,
  platform_id text NOT NULL,
  dimension text NOT NULL,
  day date NOT NULL,
  value text NOT NULL,
  resolutions integer NOT NULL,
  zero_results integer NOT NULL,
  PRIMARY KEY (organization_id, dimension, day, value)
);
CREATE TABLE resolution_demand_day_waits (
  organization_id text NOT NULL,
  platform_id text NOT NULL,
  dimension text NOT NULL,
  day date NOT NULL,
  value text NOT NULL,
  bucket integer NOT NULL,
  resolutions integer NOT NULL,
  PRIMARY KEY (organization_id, dimension, day, value, bucket)
);
CREATE TABLE resolution_demand_day_exclusions (
  organization_id text NOT NULL,
  platform_id text NOT NULL,
  dimension text NOT NULL,
  day date NOT NULL,
  value text NOT NULL,
  code text NOT NULL,
  providers bigint NOT NULL,
  PRIMARY KEY (organization_id, dimension, day, value, code)
);
CREATE TABLE resolution_demand_days_done (
  organization_id text NOT NULL,
  dimension text NOT NULL,
  day date NOT NULL,
  PRIMARY KEY (organization_id, dimension, day)
);

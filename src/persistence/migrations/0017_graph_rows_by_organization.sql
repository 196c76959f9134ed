-- A graph load from the rows reads an organization's live services and its calendar connections in id order: these
-- give that order within the organization as an index walk (as providers_org_id gives the providers'), so the load
-- streams its rows from the first fetch instead of sorting every row of the organization first (at 1,000,000 an
-- external sort of a gigabyte per table before the first row).
CREATE INDEX services_org_id ON services (organization_id, id);
CREATE INDEX calendar_connections_org_id ON calendar_connections (organization_id, id);

/** Provider graph records as the domain sees them (already normalized). */

/** Status of a license record (CONTRACT part 3). */
export type LicenseStatus = 'active' | 'inactive' | 'expired' | 'revoked' | 'pending';

/** One license held by a provider. */
export interface LicenseRecord {
  licenseTypeCode: string;
  /** Upper-case region code such as `US-CA`. */
  regionCode: string;
  status: LicenseStatus;
  /** YYYY-MM-DD; the license is valid through this date. */
  expiresAt?: string | undefined;
  /** ISO 8601 UTC timestamp; absent means unverified. */
  verifiedAt?: string | undefined;
}

/** A provider of one organization, with normalized codes. */
export interface Provider {
  id: string;
  organizationId: string;
  externalId: string;
  displayName: string;
  email?: string | undefined;
  status: 'active' | 'inactive' | 'suspended';
  searchable: boolean;
  professionCode?: string | undefined;
  specialtyCodes: string[];
  languageCodes: string[];
  /** `virtual` | `in_person`. */
  modalityCodes: string[];
  serviceRegionCodes: string[];
  insurancePlanCodes: string[];
  ageGroupCodes: string[];
  licenseRecords: LicenseRecord[];
  /** Absent means "not stated" (a requested acceptsNewClients constraint is then unknown). */
  acceptsNewClients?: boolean | undefined;
  timezone?: string | undefined;
  bio?: string | undefined;
  username?: string | undefined;
  location?: string | undefined;
  /** Absent means unlimited. */
  panelCapacity?: number | undefined;
  panelCurrentCount?: number | undefined;
  profileVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** A bookable session type offered by one provider. */
export interface ProviderService {
  id: string;
  organizationId: string;
  providerId: string;
  title: string;
  /** Derived from the title alone; names the session type across providers. */
  slug: string;
  duration: number;
  price?: number | undefined;
  currency?: string | undefined;
  /** `virtual` | `in-person` | `both`. */
  modality?: string | undefined;
  slotIntervalMinutes?: number | undefined;
  minimumNoticeMinutes?: number | undefined;
  bufferBeforeMinutes?: number | undefined;
  bufferAfterMinutes?: number | undefined;
}

/** A wall-clock window `HH:MM`-`HH:MM`. */
export interface TimeWindow {
  start: string;
  end: string;
}

/** Weekday keys used by schedules. */
export type Weekday = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';

/** A weekly availability schedule (a "calendar connection"). */
export interface CalendarConnection {
  id: string;
  organizationId: string;
  providerId: string;
  title?: string | undefined;
  timezone: string;
  days: Partial<Record<Weekday, { enabled: boolean; slots: TimeWindow[] }>>;
  overrides: { date: string; slots: TimeWindow[] }[];
  externalCalendar?: { type: 'ics'; url: string } | undefined;
  status: 'active';
}

import { DateTime } from 'luxon';
import { slotsForLocalDate, type Slot } from '../../domain/availability/slot-generation.js';
import type { CalendarConnection, LicenseRecord, ProviderService } from '../../domain/provider.js';
import { activeLicenseValidThrough } from '../../domain/eligibility/active-license-valid-through.js';
import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import { findLatestCalendarConnectionRow } from '../../persistence/calendar-connection-repository.js';
import { findProviderRow } from '../../persistence/provider-repository.js';
import { findServiceRow } from '../../persistence/service-repository.js';
import type { Caller } from '../caller.js';
import { toDomainSchedule, toDomainService } from '../resolution/org-graph.js';

const MINUTE_MS = 60_000;

/** A provider's service with what v1 slots need: its display names and the provider's current schedule. */
export interface BookableService {
  providerId: string;
  providerName: string;
  service: ProviderService;
  /** The provider's newest schedule; undefined when it has none or the provider is not active (nothing bookable). */
  schedule: CalendarConnection | undefined;
  /** The last local date its active licences cover; slots after it are not bookable (undefined: no such limit). */
  licenseValidThrough: string | undefined;
}

/**
 * Loads a provider and one of its services for the caller (404 PROVIDER_NOT_FOUND / SERVICE_NOT_FOUND,
 * 403 FORBIDDEN for another organization's, each naming the input field), with the provider's schedule.
 */
export async function loadBookableService(
  db: Queryable,
  caller: Caller,
  providerId: string,
  serviceId: string,
  fields: { provider: string; service: string },
): Promise<BookableService> {
  const provider = await findProviderRow(db, providerId);
  if (!provider) throw new ServiceError('PROVIDER_NOT_FOUND', undefined, { field: fields.provider });
  if (provider.organization_id !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'The provider belongs to another organization.', { field: fields.provider });
  const serviceRow = await findServiceRow(db, serviceId);
  if (!serviceRow) throw new ServiceError('SERVICE_NOT_FOUND', undefined, { field: fields.service });
  if (serviceRow.organization_id !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'The service belongs to another organization.', { field: fields.service });
  if (serviceRow.provider_id !== providerId)
    throw new ServiceError('SERVICE_NOT_FOUND', 'The provider does not offer this service.', { field: fields.service });
  const sched = await findLatestCalendarConnectionRow(db, providerId);
  const active = provider.status === 'active';
  return {
    providerId,
    providerName: String(provider.doc?.displayName ?? ''),
    service: toDomainService(serviceRow),
    schedule: active && sched ? toDomainSchedule(sched) : undefined,
    licenseValidThrough: activeLicenseValidThrough(provider.doc?.licenseRecords as LicenseRecord[] | undefined),
  };
}

/** Whether the provider's active licences cover a slot's local date (CONTRACT part 8). */
export function licenseCovers(b: BookableService, slot: Slot): boolean {
  return b.licenseValidThrough === undefined || slot.localDate <= b.licenseValidThrough;
}

/**
 * The slot of the availability that starts exactly at `start` (epoch ms), or undefined (not a slot start, past, or
 * after the provider's licences end).
 */
export function slotStartingAt(b: BookableService, start: number, now: Date): Slot | undefined {
  if (!b.schedule) return undefined;
  const date = DateTime.fromMillis(start, { zone: b.schedule.timezone }).toISODate();
  if (!date) return undefined;
  return slotsForLocalDate({ schedule: b.schedule, service: b.service, date, now, busy: [] }).find(
    (s) => s.start === start && licenseCovers(b, s),
  );
}

/**
 * The slot of the availability at local `date` and wall-clock `time` (HH:MM) in the schedule's timezone, or undefined
 * (also after the provider's licences end).
 */
export function slotAtLocalTime(b: BookableService, date: string, time: string, now: Date): Slot | undefined {
  if (!b.schedule) return undefined;
  return slotsForLocalDate({ schedule: b.schedule, service: b.service, date, now, busy: [] }).find(
    (s) => s.localTime === time && licenseCovers(b, s),
  );
}

/** The time a booking of `[start, end)` claims: widened by the service's buffers (the exclusion constraint compares these). */
export function claimRangeOf(service: ProviderService, start: number, end: number): { start: Date; end: Date } {
  return {
    start: new Date(start - (service.bufferBeforeMinutes ?? 0) * MINUTE_MS),
    end: new Date(end + (service.bufferAfterMinutes ?? 0) * MINUTE_MS),
  };
}

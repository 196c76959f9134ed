import {
  CreateServiceBody,
  DeletedService,
  EventTypeList,
  ListEventTypesQuery,
  ListServicesQuery,
  Service,
  ServiceList,
  ServicePath,
  UpdateServiceBody,
} from '../schemas/service.js';
import type { RouteSpec } from '../route.js';

/** Service (session type) routes (SPEC 4.2, CONTRACT part 3) and the v1 event-types view. */
export const catalogRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v2/services',
    service: 'CatalogService',
    rpc: 'CreateService',
    tag: 'services',
    summary:
      'Create a service for a provider; the slug is derived from the title and is unique per provider (a repeat is 409 DUPLICATE_EXTERNAL_ID with field `title`). Provider graph version +1.',
    description:
      'Creates a session type of one provider: duration, optional price (smallest currency unit, with currency), modality, slot interval, minimum notice and buffers, which slots and resolutions use.',
    body: CreateServiceBody,
    response: Service,
    errors: ['PROVIDER_NOT_FOUND', 'DUPLICATE_EXTERNAL_ID'],
  },
  {
    method: 'GET',
    path: '/api/v2/services',
    service: 'CatalogService',
    rpc: 'ListServices',
    tag: 'services',
    summary: 'List services, optionally of one provider or one slug; cursor pagination.',
    description: "Lists the organization's services.",
    query: ListServicesQuery,
    response: ServiceList,
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/services/:id',
    service: 'CatalogService',
    rpc: 'GetService',
    tag: 'services',
    summary: 'Read a service.',
    description: 'Answers one service of the organization.',
    params: ServicePath,
    response: Service,
    errors: ['SERVICE_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/api/v2/services/:id',
    service: 'CatalogService',
    rpc: 'UpdateService',
    tag: 'services',
    summary:
      'Change a service; the fields sent change, null clears price, currency or modality (slotIntervalMinutes null: the duration). A new title gives a new slug (a slug the provider already has is 409 DUPLICATE_EXTERNAL_ID with field `title`). Provider graph version +1 when something changed.',
    description:
      'Validated as on create, and the service after the change as a whole (a price needs a currency). The provider cannot be changed (400 on `providerId`). A slot interval that equalled the duration follows a new duration. Bookings already made keep their times; resolutions made afterwards use the new values.',
    params: ServicePath,
    body: UpdateServiceBody,
    response: Service,
    errors: ['SERVICE_NOT_FOUND', 'DUPLICATE_EXTERNAL_ID'],
  },
  {
    method: 'DELETE',
    path: '/api/v2/services/:id',
    service: 'CatalogService',
    rpc: 'DeleteService',
    tag: 'services',
    summary:
      'Remove a service; answers it as it was plus `deleted: true`. Afterwards it is 404 and its slug is free again. Provider graph version +1.',
    description:
      'Soft-deletes: the service is no longer listed, offered by resolutions or slots, bookable or rescheduled to, and waitlist entries are no longer offered its time; bookings already made keep it (read, cancel and complete as before), and a hold taken before the removal can still be confirmed until it expires.',
    params: ServicePath,
    response: DeletedService,
    errors: ['SERVICE_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v1/event-types',
    service: 'CatalogService',
    rpc: 'ListEventTypes',
    tag: 'v1',
    summary: 'v1 view of services (`title`, `length`) as `{data, total, hasMore, nextCursor}`; cursor pagination.',
    description: 'The v1 shape of GET /api/v2/services for v1 clients.',
    query: ListEventTypesQuery,
    response: EventTypeList,
    errors: ['PROVIDER_NOT_FOUND'],
  },
];

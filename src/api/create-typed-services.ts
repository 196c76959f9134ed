import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import type { OperationTable } from '../application/operation.js';
import { refuseUnstorableInput } from '../application/refuse-unstorable-input.js';
import { organizationService, type OrganizationServiceDeps } from './organization-service/organization-service.js';
import { apiKeyService, type ApiKeyServiceDeps } from './api-key-service/api-key-service.js';
import { analyticsService, type AnalyticsServiceDeps } from './analytics-service/analytics-service.js';
import { eventService, type EventServiceDeps } from './event-service/event-service.js';
import { auditService, type AuditServiceDeps } from './audit-service/audit-service.js';
import { webhookService, type WebhookServiceDeps } from './webhook-service/webhook-service.js';
import { catalogService, type CatalogServiceDeps } from './catalog-service/catalog-service.js';
import { providerService, type ProviderServiceDeps } from './provider-service/provider-service.js';
import { calendarService, type CalendarServiceDeps } from './calendar-service/calendar-service.js';
import { inspectorService, type InspectorServiceDeps } from './inspector-service/inspector-service.js';
import {
  rankingPolicyService,
  type RankingPolicyServiceDeps,
} from './ranking-policy-service/ranking-policy-service.js';
import { careService, type CareServiceDeps } from './care-service/care-service.js';
import { gatewayService, type GatewayServiceDeps } from './gateway-service/gateway-service.js';
import { importService, type ImportServiceDeps } from './import-service/import-service.js';
import { bookingService, type BookingServiceDeps } from './booking-service/booking-service.js';
import { resolutionService, type ResolutionServiceDeps } from './resolution-service/resolution-service.js';

/**
 * Every gRPC service, implemented on its typed messages (src/api/<service>/), each RPC refusing what no operation may
 * store before it runs (GatewayService aside: it stores nothing). The server refuses to start without one of them.
 */
export function createTypedServices(
  deps: OrganizationServiceDeps &
    ApiKeyServiceDeps &
    AnalyticsServiceDeps &
    EventServiceDeps &
    AuditServiceDeps &
    WebhookServiceDeps &
    CatalogServiceDeps &
    ProviderServiceDeps &
    CalendarServiceDeps &
    InspectorServiceDeps &
    RankingPolicyServiceDeps &
    CareServiceDeps &
    GatewayServiceDeps &
    ImportServiceDeps &
    BookingServiceDeps &
    ResolutionServiceDeps,
): Partial<Record<GrpcServiceName, OperationTable>> {
  return {
    OrganizationService: refuseUnstorableInput(organizationService(deps)),
    ApiKeyService: refuseUnstorableInput(apiKeyService(deps)),
    AnalyticsService: refuseUnstorableInput(analyticsService(deps)),
    EventService: refuseUnstorableInput(eventService(deps)),
    AuditService: refuseUnstorableInput(auditService(deps)),
    WebhookService: refuseUnstorableInput(webhookService(deps)),
    CatalogService: refuseUnstorableInput(catalogService(deps)),
    ProviderService: refuseUnstorableInput(providerService(deps)),
    CalendarService: refuseUnstorableInput(calendarService(deps)),
    InspectorService: refuseUnstorableInput(inspectorService(deps)),
    RankingPolicyService: refuseUnstorableInput(rankingPolicyService(deps)),
    CareService: refuseUnstorableInput(careService(deps)),
    // Refuse only carries the gateway's own refusal (whose message may quote a malformed body) and stores nothing.
    GatewayService: gatewayService(deps),
    ImportService: refuseUnstorableInput(importService(deps)),
    BookingService: refuseUnstorableInput(bookingService(deps)),
    ResolutionService: refuseUnstorableInput(resolutionService(deps)),
  };
}

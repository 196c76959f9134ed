import type { ServiceDefinition } from '@grpc/grpc-js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import { ApiKeyServiceClient, ApiKeyServiceService } from '../gen/scheduling/v1/api_key_service.js';
import { AuditServiceClient, AuditServiceService } from '../gen/scheduling/v1/audit_service.js';
import { CalendarServiceClient, CalendarServiceService } from '../gen/scheduling/v1/calendar_service.js';
import { CatalogServiceClient, CatalogServiceService } from '../gen/scheduling/v1/catalog_service.js';
import { ImportServiceClient, ImportServiceService } from '../gen/scheduling/v1/import_service.js';
import { OrganizationServiceClient, OrganizationServiceService } from '../gen/scheduling/v1/organization_service.js';
import { ProviderServiceClient, ProviderServiceService } from '../gen/scheduling/v1/provider_service.js';
import { ResolutionServiceClient, ResolutionServiceService } from '../gen/scheduling/v1/resolution_service.js';
import {
  RankingPolicyServiceClient,
  RankingPolicyServiceService,
} from '../gen/scheduling/v1/ranking_policy_service.js';
import { CareServiceClient, CareServiceService } from '../gen/scheduling/v1/care_service.js';
import { BookingServiceClient, BookingServiceService } from '../gen/scheduling/v1/booking_service.js';
import { AnalyticsServiceClient, AnalyticsServiceService } from '../gen/scheduling/v1/analytics_service.js';
import { GatewayServiceClient, GatewayServiceService } from '../gen/scheduling/v1/gateway_service.js';
import { WebhookServiceClient, WebhookServiceService } from '../gen/scheduling/v1/webhook_service.js';
import { InspectorServiceClient, InspectorServiceService } from '../gen/scheduling/v1/inspector_service.js';
import { EventServiceClient, EventServiceService } from '../gen/scheduling/v1/event_service.js';

/** A generic grpc-js client constructor. */
type ClientCtor = new (
  address: string,
  credentials: import('@grpc/grpc-js').ChannelCredentials,
  options?: object,
) => import('@grpc/grpc-js').Client;

/** The gRPC services of the internal API: their generated definitions and client constructors. */
export const GRPC_SERVICES = {
  OrganizationService: {
    definition: OrganizationServiceService as unknown as ServiceDefinition,
    Client: OrganizationServiceClient as unknown as ClientCtor,
  },
  ApiKeyService: {
    definition: ApiKeyServiceService as unknown as ServiceDefinition,
    Client: ApiKeyServiceClient as unknown as ClientCtor,
  },
  ProviderService: {
    definition: ProviderServiceService as unknown as ServiceDefinition,
    Client: ProviderServiceClient as unknown as ClientCtor,
  },
  CatalogService: {
    definition: CatalogServiceService as unknown as ServiceDefinition,
    Client: CatalogServiceClient as unknown as ClientCtor,
  },
  CalendarService: {
    definition: CalendarServiceService as unknown as ServiceDefinition,
    Client: CalendarServiceClient as unknown as ClientCtor,
  },
  ImportService: {
    definition: ImportServiceService as unknown as ServiceDefinition,
    Client: ImportServiceClient as unknown as ClientCtor,
  },
  AuditService: {
    definition: AuditServiceService as unknown as ServiceDefinition,
    Client: AuditServiceClient as unknown as ClientCtor,
  },
  ResolutionService: {
    definition: ResolutionServiceService as unknown as ServiceDefinition,
    Client: ResolutionServiceClient as unknown as ClientCtor,
  },
  RankingPolicyService: {
    definition: RankingPolicyServiceService as unknown as ServiceDefinition,
    Client: RankingPolicyServiceClient as unknown as ClientCtor,
  },
  CareService: {
    definition: CareServiceService as unknown as ServiceDefinition,
    Client: CareServiceClient as unknown as ClientCtor,
  },
  BookingService: {
    definition: BookingServiceService as unknown as ServiceDefinition,
    Client: BookingServiceClient as unknown as ClientCtor,
  },
  AnalyticsService: {
    definition: AnalyticsServiceService as unknown as ServiceDefinition,
    Client: AnalyticsServiceClient as unknown as ClientCtor,
  },
  GatewayService: {
    definition: GatewayServiceService as unknown as ServiceDefinition,
    Client: GatewayServiceClient as unknown as ClientCtor,
  },
  WebhookService: {
    definition: WebhookServiceService as unknown as ServiceDefinition,
    Client: WebhookServiceClient as unknown as ClientCtor,
  },
  EventService: {
    definition: EventServiceService as unknown as ServiceDefinition,
    Client: EventServiceClient as unknown as ClientCtor,
  },
  InspectorService: {
    definition: InspectorServiceService as unknown as ServiceDefinition,
    Client: InspectorServiceClient as unknown as ClientCtor,
  },
} as const satisfies Record<GrpcServiceName, { definition: ServiceDefinition; Client: ClientCtor }>;

/** The fully qualified gRPC service name (`scheduling.v1.ProviderService`). */
export function qualifiedServiceName(name: GrpcServiceName): string {
  return `scheduling.v1.${name}`;
}

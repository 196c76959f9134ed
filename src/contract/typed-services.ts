import type { GrpcServiceName } from './grpc-service-name.js';

/**
 * The services implemented on their typed messages (src/api/<service>/): the server hands each RPC its decoded request
 * and the gateway maps REST onto it one way (request-message-of.ts), refusing at the edge what the message cannot
 * carry. The other services still take the REST input (src/application/*-operations.ts) until they move here.
 */
export const TYPED_SERVICES: ReadonlySet<GrpcServiceName> = new Set<GrpcServiceName>([
  'OrganizationService',
  'ApiKeyService',
  'AnalyticsService',
  'EventService',
  'AuditService',
  'WebhookService',
  'CatalogService',
  'ProviderService',
  'CalendarService',
  'InspectorService',
  'RankingPolicyService',
  'CareService',
  'GatewayService',
  'ImportService',
  'BookingService',
  'ResolutionService',
]);

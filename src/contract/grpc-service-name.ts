/**
 * Name of a gRPC service of the internal API (`scheduling.v1.<name>`), declared here so the route table and the
 * operations can name a service without depending on the gRPC layer; `src/grpc/service-registry.ts` binds each name
 * to its generated definition and client, and the compiler checks that both list the same services.
 */
export type GrpcServiceName =
  | 'OrganizationService'
  | 'ApiKeyService'
  | 'ProviderService'
  | 'CatalogService'
  | 'CalendarService'
  | 'ImportService'
  | 'AuditService'
  | 'ResolutionService'
  | 'RankingPolicyService'
  | 'CareService'
  | 'BookingService'
  | 'AnalyticsService'
  | 'GatewayService'
  | 'WebhookService'
  | 'EventService'
  | 'InspectorService';

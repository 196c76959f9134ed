import { CandidatesPage, CandidatesQuery, CreateResolutionBody, CreateResolutionV1Body, Resolution, ResolutionPath } from '../schemas/resolution.js';
import type { RouteSpec } from '../route.js';

const idempotencyHeader = (required: boolean) => ({ name: 'Idempotency-Key', required, description: 'Unique key; a replay with the same payload answers the first response with Idempotent-Replayed: true.' });

/** Resolution routes (SPEC 4.1, CONTRACT part 4). */
export const resolutionRoutes: RouteSpec[] = [
  { method: 'POST', path: '/api/v2/resolutions', service: 'ResolutionService', rpc: 'CreateResolution', tag: 'resolutions', summary: 'Resolve a request into at most 10 ranked options.', headers: [idempotencyHeader(true)], body: CreateResolutionBody, response: Resolution, errors: ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'INVALID_DATE_RANGE', 'SERVICE_NOT_FOUND', 'POLICY_NOT_FOUND', 'LICENSE_REGION_MISMATCH'] },
  { method: 'POST', path: '/api/v1/resolutions', service: 'ResolutionService', rpc: 'CreateResolutionV1', tag: 'v1', summary: 'v1 form: `service` id or slug, plain-value constraints; answers the v2 resolution shape.', headers: [idempotencyHeader(false)], body: CreateResolutionV1Body, response: Resolution, errors: ['IDEMPOTENCY_KEY_REUSED', 'INVALID_DATE_RANGE', 'SERVICE_NOT_FOUND'] },
  { method: 'GET', path: '/api/v2/resolutions/:id', service: 'ResolutionService', rpc: 'GetResolution', tag: 'resolutions', summary: 'Read a resolution; 410 after it expires.', params: ResolutionPath, response: Resolution, errors: ['RESOLUTION_NOT_FOUND', 'RESOLUTION_EXPIRED'] },
  { method: 'GET', path: '/api/v2/resolutions/:id/candidates', service: 'ResolutionService', rpc: 'ListCandidates', tag: 'resolutions', summary: 'Every provider considered, with exclusions and matched constraints.', params: ResolutionPath, query: CandidatesQuery, response: CandidatesPage, errors: ['RESOLUTION_NOT_FOUND', 'RESOLUTION_EXPIRED'] },
];

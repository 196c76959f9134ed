import type { z } from 'zod';
import type { ErrorCode } from '../errors/error-catalogue.js';
import type { GrpcServiceName } from '../grpc/service-registry.js';

/** One REST route of the contract and the RPC it maps onto; the single source for gateway routing and openapi.json. */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Koa path, e.g. `/api/v2/providers/:id`. */
  path: string;
  service: GrpcServiceName;
  rpc: string;
  summary: string;
  tag: string;
  /** HTTP status of success (default 200). */
  successStatus?: number;
  /** `key` (default) or `none` (the input is the credential). */
  auth?: 'key' | 'none';
  platformKeyOnly?: boolean;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  /** Request headers this route reads beyond Authorization. */
  headers?: { name: string; required: boolean; description: string }[];
  /** Error codes specific to the route (common ones are added by openapi generation). */
  errors?: ErrorCode[];
}

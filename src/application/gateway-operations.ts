import { z } from 'zod';
import { ServiceError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import type { OperationTable } from './operation.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/**
 * Refusals the REST gateway makes before any operation (CONTRACT part 1); VALIDATION_ERROR for what it refuses of a
 * request it cannot read (a body nested past the parser's bound, a body cut short, no Host).
 */
export const GATEWAY_REFUSALS = ['ROUTE_NOT_FOUND', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'VALIDATION_ERROR'] as const;

/** The RefuseRequest message: the refusal, its message as the gateway phrased it, and the field it names (unset: ''). */
const RefuseBody = z.object({
  code: z.enum(GATEWAY_REFUSALS),
  message: z.string().max(1000).optional(),
  field: z.string().max(200).optional(),
});

/**
 * GatewayService operations. `Refuse` runs after the server authenticated the caller and counted the request against
 * its key, like any call, and then fails with the gateway's refusal: so a refused request with a valid key is
 * counted and answered with the RateLimit state, and one made with Service-Organization-Id is audited, with no
 * rule of either kind in the gateway. `CheckCredentials` succeeds once the server authenticated the key (uncounted):
 * the gateway reads a request's body only then.
 */
export function createGatewayOperations(): OperationTable {
  return {
    CheckCredentials: {
      uncounted: true,
      audit: { ...AUDIT_ACTIONS.credentialsCheck, kind: 'read' },
      async handler() {
        return {};
      },
    },
    Refuse: {
      audit: { ...AUDIT_ACTIONS.requestRefuse, kind: 'read' },
      async handler(_caller, input) {
        const { code, message, field } = parseInput(RefuseBody, input.body);
        throw new ServiceError(code, message || undefined, { field: field || undefined });
      },
    },
  };
}

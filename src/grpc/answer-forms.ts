/**
 * Call metadata naming the form a caller wants a typed request's answer in: `json` (only `result_json`, the REST JSON
 * text: the gateway's default, cheapest for large answers) or `both` (typed fields and `result_json`: the gateway's
 * check of its typed translation). Unset, a typed request is answered in typed fields.
 */
export const ANSWER_FORM_KEY = 'x-service-answer-form';

/** How the REST gateway takes answers (GATEWAY_ANSWERS): see `ANSWER_FORM_KEY` and create-gateway.ts. */
export type GatewayAnswers = 'json' | 'typed' | 'check';

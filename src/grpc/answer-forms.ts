/**
 * Call metadata asking the server to add the JSON form (`result_json`) to a typed answer; the gateway's check of its
 * typed translation sends it (see `checkTypedAnswers` in create-gateway.ts).
 */
export const ANSWER_JSON_TOO_KEY = 'x-service-answer-json';

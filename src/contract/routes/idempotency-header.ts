/** The `Idempotency-Key` request header of a route that honours it (CONTRACT part 4), required or optional. */
export const idempotencyHeader = (required: boolean) => ({
  name: 'Idempotency-Key',
  required,
  description: 'Unique key; a replay with the same payload answers the first response with Idempotent-Replayed: true.',
});

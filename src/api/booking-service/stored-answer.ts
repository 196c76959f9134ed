/** The proto3 JSON functions ts-proto gives a message. */
interface JsonForm<T> {
  toJSON(message: T): unknown;
  fromJSON(object: unknown): T;
}

/**
 * The form in which a direct-path write (BookSlot, RescheduleBooking, CancelBooking) keeps its answer under an
 * `idempotency-key`, in idempotency_answers with the write and in Redis: the response message's proto3 JSON. The write
 * answers that same form (responseOfStored), so its first answer and its replays are one message.
 */
export function storedAnswerOf<T>(type: JsonForm<T>, message: T): unknown {
  return type.toJSON(message);
}

/**
 * The response message of a stored answer: its proto3 JSON (which always holds the `booking`), or an answer stored
 * before the RPCs answered the booking resource, in the v1 REST JSON it was then, read by `earlier`
 * (v1-json-answers.ts).
 */
export function responseOfStored<T>(
  type: JsonForm<T>,
  stored: unknown,
  earlier: (json: Record<string, unknown>) => T,
): T {
  const json = (stored ?? {}) as Record<string, unknown>;
  return 'booking' in json ? type.fromJSON(json) : earlier(json);
}

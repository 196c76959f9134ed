/** The Idempotency-Key of one action a person takes (cancel this booking, move it to this time). */
export interface IdempotentAction {
  /**
   * The key to send for `payload`: the previous attempt's key while that attempt did not succeed and the payload is
   * the same (a retry of the same action), else a new one (a new action).
   */
  keyFor(payload: unknown): string;
  /** The action succeeded: the next attempt is a new action with a new key. */
  succeeded(): void;
}

/**
 * Keeps one Idempotency-Key per action: generated when the person starts an action, reused when they retry it after
 * a failure (a lost answer, a 503), so the service answers the first outcome instead of acting twice; a changed
 * payload is another action (the service would refuse the old key with another body: IDEMPOTENCY_KEY_REUSED).
 */
export function idempotentAction(): IdempotentAction {
  let open: { key: string; payload: string } | undefined;
  return {
    keyFor(payload) {
      const text = JSON.stringify(payload ?? null);
      if (!open || open.payload !== text) open = { key: crypto.randomUUID(), payload: text };
      return open.key;
    },
    succeeded() {
      open = undefined;
    },
  };
}

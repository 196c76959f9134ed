/** Thrown when a compare-and-set write kept losing to concurrent writers; the caller may retry later or answer 409/503. */
export class ConcurrencyConflictError extends Error {
  readonly code = 'ACTOR_CONCURRENCY_CONFLICT';
  constructor(
    readonly kind: string,
    readonly id: string,
    readonly attempts: number,
  ) {
    super(`Actor ${kind}/${id} changed concurrently ${attempts} times in a row; retry the request.`);
    this.name = 'ConcurrencyConflictError';
  }
}

/** Thrown when an actor is not stored (never created, or its keys expired). */
export class ActorNotFoundError extends Error {
  readonly code = 'ACTOR_NOT_FOUND';
  constructor(
    readonly kind: string,
    readonly id: string,
  ) {
    super(`Actor ${kind}/${id} does not exist (never created, or expired); create it first.`);
    this.name = 'ActorNotFoundError';
  }
}

/** Thrown by create when the actor already exists (SET NX semantics). */
export class ActorAlreadyExistsError extends Error {
  readonly code = 'ACTOR_ALREADY_EXISTS';
  constructor(
    readonly kind: string,
    readonly id: string,
  ) {
    super(`Actor ${kind}/${id} already exists; send it an event instead of creating it again.`);
    this.name = 'ActorAlreadyExistsError';
  }
}

/** Thrown when a stored snapshot was written by a machine version this code cannot read (newer, or no migration). */
export class MachineVersionError extends Error {
  readonly code = 'ACTOR_MACHINE_VERSION';
  constructor(
    readonly kind: string,
    readonly id: string,
    readonly storedVersion: number,
    readonly currentVersion: number,
  ) {
    super(
      `Actor ${kind}/${id} was stored by machine version ${storedVersion}, this code runs version ${currentVersion}: ` +
        (storedVersion > currentVersion
          ? 'deploy the newer code everywhere.'
          : 'give the actor kind a migrate function.'),
    );
    this.name = 'MachineVersionError';
  }
}

/** Thrown when a snapshot cannot be restored, or the machine errors while handling an event. */
export class ActorRuntimeError extends Error {
  readonly code = 'ACTOR_RUNTIME_ERROR';
  constructor(
    readonly kind: string,
    readonly id: string,
    readonly phase: 'restore' | 'event',
    cause: unknown,
  ) {
    super(`Actor ${kind}/${id} failed during ${phase}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ActorRuntimeError';
  }
}

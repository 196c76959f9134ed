/** How long events are kept and listed (CONTRACT part 8): 30 days; older ones are swept and answered as unknown. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

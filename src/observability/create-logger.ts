import { pino, type Logger } from 'pino';

/** The service's structured logger (pino): one JSON object per line on stdout. */
export type ServiceLogger = Logger;

/** Log levels LOG_LEVEL accepts, from the most to the least verbose, plus `silent`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How long a written line may wait in the buffer of the asynchronous destination before it is flushed. */
const FLUSH_INTERVAL_MS = 1000;
/** The asynchronous destination writes once this many bytes are buffered (or at the next flush). */
const BUFFER_BYTES = 4096;

/**
 * The service's stdout: asynchronous and batched (a request's access line is a memory append, not a write), flushed
 * at least every second, by `logger.flush()` at shutdown, and synchronously when the process exits (a crash included:
 * an uncaught exception still emits 'exit').
 */
function bufferedStdout(): pino.DestinationStream {
  const dest = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  const timer = setInterval(() => {
    dest.flush(() => undefined);
  }, FLUSH_INTERVAL_MS);
  timer.unref();
  process.once('exit', () => {
    clearInterval(timer);
    try {
      dest.flushSync();
    } catch {
      // Nothing buffered, or stdout already gone: nothing more can be written.
    }
  });
  return dest;
}

/**
 * Creates the logger. Credentials never reach a line: authorization headers, keys, secrets and tokens are redacted
 * wherever they appear in a logged object, so a careless `logger.info({headers})` cannot leak them. Without a
 * `destination`, lines go to stdout through a buffered, asynchronous writer.
 */
export function createLogger(opts: { level: LogLevel; destination?: pino.DestinationStream }): ServiceLogger {
  return pino(
    {
      level: opts.level,
      base: { service: 'scheduling' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          'key',
          '*.key',
          'secret',
          '*.secret',
          'token',
          '*.token',
          'password',
          '*.password',
        ],
        censor: '[redacted]',
      },
    },
    opts.destination ?? (opts.level === 'silent' ? undefined : bufferedStdout()),
  );
}

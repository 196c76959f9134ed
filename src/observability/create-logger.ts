import { pino, type Logger } from 'pino';

/** The service's structured logger (pino): one JSON object per line on stdout. */
export type ServiceLogger = Logger;

/** Log levels LOG_LEVEL accepts, from the most to the least verbose, plus `silent`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Creates the logger. Credentials never reach a line: authorization headers, keys, secrets and tokens are redacted
 * wherever they appear in a logged object, so a careless `logger.info({headers})` cannot leak them.
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
    opts.destination,
  );
}

/** A logger that writes nothing (tests and tools that inject their own). */
export function silentLogger(): ServiceLogger {
  return pino({ level: 'silent' });
}

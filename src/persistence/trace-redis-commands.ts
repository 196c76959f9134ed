import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { Tracing } from '../observability/create-tracing.js';
import { markSpanFailed } from '../observability/mark-span-failed.js';

/** The one place every command of a node-redis client passes (see bound-redis-replies.ts). */
interface CommandQueue {
  addCommand(args: readonly unknown[], ...rest: unknown[]): Promise<unknown>;
}

/** The attributes every Redis span of a client on `url` carries: the system, database index and server. */
function redisSpanAttributes(url: string): Attributes {
  const attributes: Attributes = { 'db.system': 'redis', 'db.system.name': 'redis' };
  try {
    const u = new URL(url);
    if (u.hostname) attributes['server.address'] = u.hostname;
    attributes['server.port'] = u.port ? Number(u.port) : 6379;
    attributes['db.namespace'] = u.pathname.length > 1 ? u.pathname.slice(1) : '0';
  } catch {
    // A URL node-redis reads but URL does not: the spans go without the server.
  }
  return attributes;
}

/**
 * Gives each command `client` sends within a traced request or job a CLIENT span named by the command (`HGET`,
 * `EVALSHA`; MULTI, each queued command and EXEC apart), ending when its reply (or error) arrives. Only the command's
 * name is recorded: keys and arguments (which may name a key's hash or a customer) never are. Commands outside a
 * traced request or job (background polls, the connection handshake) pass as they are.
 */
export function traceRedisCommands(client: object, tracing: Tracing, url: string): void {
  const queue = (client as { _getQueue?: () => CommandQueue })._getQueue?.();
  if (typeof queue?.addCommand !== 'function')
    throw new Error(
      'node-redis has no _getQueue().addCommand: update traceRedisCommands in src/persistence/trace-redis-commands.ts',
    );
  const attributes = redisSpanAttributes(url);
  const add = queue.addCommand.bind(queue);
  queue.addCommand = (args, ...rest) => {
    const name = String(args[0] ?? 'UNKNOWN').toUpperCase();
    const span = tracing.childSpan(name, {
      kind: SpanKind.CLIENT,
      attributes: { ...attributes, 'db.operation.name': name },
    });
    if (!span) return add(args, ...rest);
    return add(args, ...rest).then(
      (reply) => {
        span.end();
        return reply;
      },
      (err: unknown) => {
        markSpanFailed(span, err);
        span.end();
        throw err;
      },
    );
  };
}

/** A Redis reply that did not come within the bound: the server hangs (stopped, stalled) or the link is gone. */
export class RedisReplyTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisReplyTimeoutError';
  }
}

/** The one place every command of a node-redis client passes (commands, scripts, MULTI, the connection handshake). */
interface CommandQueue {
  addCommand(...args: unknown[]): Promise<unknown>;
}

/**
 * Bounds the wait for each reply of one node-redis client (a single server's, or one node's of a cluster). node-redis
 * stops timing a command once it is written, and a stopped server's kernel still accepts the bytes, so its callers
 * would wait for ever; the bound is put on the queue every command goes through (`_getQueue`, internal to node-redis
 * 5/6: an upgrade that drops it fails here, at start-up and in the tests). A late reply is still read and dropped, so
 * the connection stays in step.
 */
export function boundRedisReplies(client: object, ms: number): void {
  const queue = (client as { _getQueue?: () => CommandQueue })._getQueue?.();
  if (typeof queue?.addCommand !== 'function')
    throw new Error(
      'node-redis has no _getQueue().addCommand: update boundRedisReplies in src/persistence/bound-redis-replies.ts',
    );
  const add = queue.addCommand.bind(queue);
  queue.addCommand = (...args: unknown[]) => {
    const reply = add(...args);
    return new Promise((resolve, reject) => {
      // Decided after the event loop's next poll for I/O (setImmediate runs after it): when the loop was held up past
      // the bound (a busy host, a long collection), timers run before the sockets are read, and a reply that came in
      // time would be taken for a missing one.
      const timer = setTimeout(() => setImmediate(() => reject(new RedisReplyTimeoutError(ms))), ms);
      reply.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
}

import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '../../src/errors/service-error.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/launcher/private-redis.js';
import { createRedis, RedisReplyTimeoutError, withRedis, type Redis } from '../../src/persistence/redis-client.js';

// A redis-server of this file's own, stopped with SIGSTOP: the connection stays open and the kernel still takes the
// commands, but nothing answers.
const dir = mkdtempSync(join(process.env.TEST_DATA_DIR ?? tmpdir(), 'redis-hang-'));
let server: PrivateRedis;
let redis: Redis;
let stopped = false;

test.before(async () => {
  server = await startPrivateRedis({ dir, appendOnly: false });
  redis = await createRedis(server.url, { commandTimeoutMs: 300 });
});
test.after.always(async () => {
  if (stopped) server.child.kill('SIGCONT');
  await redis?.close().catch(() => undefined);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Settles `p` into its error (undefined when it fulfilled). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );

test.serial(
  'commands to a hung server fail within the reply bound as 503, then the same client works again',
  async (t) => {
    server.child.kill('SIGSTOP');
    stopped = true;
    const [get, script, multi, wrapped] = await Promise.all([
      failure(redis.get('k')),
      failure(redis.eval('return 1', { keys: [], arguments: [] })),
      failure(redis.multi().set('k', 'v').get('k').exec()),
      failure(withRedis(() => redis.set('k', 'v'))),
    ]);
    server.child.kill('SIGCONT');
    stopped = false;
    t.true(get instanceof RedisReplyTimeoutError, String(get));
    t.true(script instanceof RedisReplyTimeoutError, String(script));
    t.true(multi instanceof RedisReplyTimeoutError, String(multi));
    t.true(
      wrapped instanceof ServiceError && wrapped.code === 'SERVICE_UNAVAILABLE' && wrapped.retryAfter === 1,
      String(wrapped),
    );
    // The late replies were read and dropped: the connection is in step, the next answer is the next command's.
    await redis.set('after', 'resumed');
    t.is(await redis.get('after'), 'resumed');
  },
);

test.serial(
  'a reply that came in time is not taken for a missing one when the event loop was held up past the bound',
  async (t) => {
    await redis.set('held', 'up');
    // The command is written, then this process is busy for longer than the bound (300 ms) while the reply arrives: the
    // bound's timer and the reply are both due when the loop next turns.
    const reply = redis.get('held');
    // One turn of the loop writes it (node-redis writes on a later tick).
    await new Promise((r) => setImmediate(r));
    const until = Date.now() + 600;
    while (Date.now() < until);
    t.is(await reply, 'up');
  },
);

import test from 'ava';
import { loadConfig } from '../../src/config/load-config.js';
import { redisClusterNodes } from '../../src/persistence/redis-cluster-client.js';

test('REDIS_CLUSTER_NODES becomes a redis-cluster:// URL that names the same nodes', (t) => {
  const nodes = ' 10.0.0.1:7000, redis-b:7001 ,[::1]:7002';
  const config = loadConfig({ REDIS_CLUSTER_NODES: nodes });
  t.is(config.redisUrl, 'redis-cluster://10.0.0.1:7000,redis-b:7001,[::1]:7002');
  t.deepEqual(redisClusterNodes(config.redisUrl!), [
    { host: '10.0.0.1', port: 7000 },
    { host: 'redis-b', port: 7001 },
    { host: '::1', port: 7002 },
  ]);
  // A forked worker gets both: the same cluster.
  t.is(loadConfig({ REDIS_CLUSTER_NODES: nodes, REDIS_URL: config.redisUrl! }).redisUrl, config.redisUrl);
});

test('without REDIS_CLUSTER_NODES, REDIS_URL is used as it is (a single server)', (t) => {
  t.is(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl, 'redis://127.0.0.1:6379/2');
  t.is(loadConfig({}).redisUrl, undefined);
  t.is(redisClusterNodes('redis://127.0.0.1:6379'), undefined);
});

test('bad REDIS_CLUSTER_NODES, or a different REDIS_URL too, fail start-up with a message saying the form', (t) => {
  for (const bad of ['10.0.0.1', '10.0.0.1:0', 'host:port', '10.0.0.1:7000,:7001', 'redis://10.0.0.1:7000', ',']) {
    const err = t.throws(() => loadConfig({ REDIS_CLUSTER_NODES: bad }), undefined, bad);
    t.regex(err?.message ?? '', /REDIS_CLUSTER_NODES/, bad);
  }
  t.throws(() => loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_URL: 'redis://10.0.0.2:6379' }), {
    message: /not both/,
  });
});

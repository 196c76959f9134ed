import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { redisClusterUrl } from '../../src/persistence/redis-cluster-client.js';

/** One redis-server of a test cluster. */
export interface ClusterNode {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

/** A throw-away Redis Cluster on loopback: 3 masters and 3 replicas, started and stopped by one test file. */
export interface TestRedisCluster {
  /** `redis-cluster://127.0.0.1:p1,...` (what REDIS_CLUSTER_NODES becomes). */
  url: string;
  /** The comma-separated `host:port` list for REDIS_CLUSTER_NODES. */
  nodesSetting: string;
  nodes: ClusterNode[];
  /** Runs one command on the node at `port` (a short-lived connection). */
  command(port: number, args: string[]): Promise<unknown>;
  /** The port of the master currently serving `key`'s slot. */
  masterOf(key: string): Promise<number>;
  /** SIGKILLs the node at `port` (a crash: nothing flushed, no goodbye to the cluster). */
  kill(port: number): Promise<void>;
  /** Resolves once every live node answers `cluster_state:ok` and every slot has a live master (bounded). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (+10000) is free too, below the usual ephemeral range. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (taken.has(port)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port pair for a cluster node');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function nodeCommand(port: number, args: string[]): Promise<unknown> {
  const c = createClient({ socket: { host: '127.0.0.1', port, connectTimeout: 1000, reconnectStrategy: false } });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return await c.sendCommand(args);
  } finally {
    c.destroy();
  }
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${out}`));
    });
  });
}

/**
 * Starts six `redis-server`s on free loopback ports in a temporary folder (cluster mode, node timeout 1 s, AOF
 * `everysec`, `cluster-require-full-coverage no` so a slot without a master does not stop the others), joins them with
 * `redis-cli --cluster create --cluster-replicas 1` and waits until the cluster is healthy and every replica has synced.
 * `stop()` ends only the processes it started.
 */
export async function startTestRedisCluster(): Promise<TestRedisCluster> {
  const dir = mkdtempSync(join(process.env.TEST_DATA_DIR ?? tmpdir(), 'redis-cluster-'));
  const taken = new Set<number>();
  const nodes: ClusterNode[] = [];
  const stop = async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGTERM');
    await Promise.race([Promise.all(nodes.map((n) => n.exited)), sleep(10_000)]);
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      const port = await freeClusterPort(taken);
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      // prettier-ignore
      const child = spawn('redis-server', [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, '--daemonize', 'no', '--protected-mode', 'yes',
        '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--logfile', 'redis.log',
        '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000',
        '--cluster-require-full-coverage', 'no',
      ], { stdio: 'ignore' });
      const exited = new Promise<void>((res) => child.once('exit', () => res()));
      nodes.push({ port, child, exited });
    }
    for (const n of nodes) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        if ((await nodeCommand(n.port, ['PING']).catch(() => undefined)) === 'PONG') break;
        if (Date.now() > deadline) throw new Error(`cluster node ${n.port} did not answer PING within 10 s`);
        await sleep(25);
      }
    }
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
      30_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const info = async (port: number, section: string[]) => String(await nodeCommand(port, section));

  /** Each live node's cluster state, slots served and replication link, for a failure message. */
  const describe = () =>
    Promise.all(
      alive().map(async (n) => {
        const ci = await info(n.port, ['CLUSTER', 'INFO']).catch((e: unknown) => String(e));
        const repl = await info(n.port, ['INFO', 'replication']).catch((e: unknown) => String(e));
        const pick = (text: string, re: RegExp) => re.exec(text)?.[1];
        return {
          port: n.port,
          state: pick(ci, /cluster_state:(\w+)/),
          slotsOk: pick(ci, /cluster_slots_ok:(\d+)/),
          role: pick(repl, /role:(\w+)/),
          link: pick(repl, /master_link_status:(\w+)/),
        };
      }),
    );

  const cluster: TestRedisCluster = {
    url: redisClusterUrl(nodes.map((n) => ({ host: '127.0.0.1', port: n.port }))),
    nodesSetting: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    nodes,
    command: nodeCommand,
    async masterOf(key) {
      const port = alive()[0]!.port;
      const slot = Number(await nodeCommand(port, ['CLUSTER', 'KEYSLOT', key]));
      const slots = (await nodeCommand(port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][];
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`slot ${slot} has no master`);
      return Number(range[2][1]);
    },
    async kill(port) {
      const n = nodes.find((x) => x.port === port);
      if (!n) throw new Error(`no cluster node on ${port}`);
      n.child.kill('SIGKILL');
      await n.exited;
    },
    async waitHealthy(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const live = alive();
        const states = await Promise.all(
          live.map(async (n) => {
            const ci = await info(n.port, ['CLUSTER', 'INFO']).catch(() => '');
            const repl = await info(n.port, ['INFO', 'replication']).catch(() => '');
            const synced = !/role:slave/.test(repl) || /master_link_status:up/.test(repl);
            return /cluster_state:ok/.test(ci) && /cluster_slots_ok:16384/.test(ci) && synced;
          }),
        );
        if (live.length > 0 && states.every(Boolean)) return;
        if (Date.now() > deadline)
          throw new Error(
            `the test cluster was not healthy within ${timeoutMs} ms: ${JSON.stringify(await describe())}`,
          );
        await sleep(100);
      }
    },
    stop,
  };
  try {
    await cluster.waitHealthy(60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return cluster;
}

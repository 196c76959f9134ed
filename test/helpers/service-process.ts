import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const OUTPUT_LIMIT = 64_000;

/** How to start one service child process. */
export interface ServiceProcessOptions {
  databaseUrl: string;
  /** Shared Redis; left out, the service starts its own private redis-server under `dataDir/redis`. */
  redisUrl?: string | undefined;
  platformKey: string;
  dataDir: string;
  env?: Record<string, string>;
  /** How long to wait for GET /readyz to answer 200 (default 60 s). */
  readyTimeoutMs?: number;
  /** The checkout whose `npm start` runs (default this one): a bench compares another tree of the service with it. */
  root?: string;
}

/** A service running as a child process (the command of `npm start`), on its own free ports. */
export interface ServiceProcess {
  url: string;
  platformKey: string;
  pid: number;
  dataDir: string;
  /** Everything the process wrote to stdout and stderr so far (bounded), for failure messages. */
  output(): string;
  /** True once the process exited. */
  exited(): boolean;
  /** The exit code once the process exited (-1 when a signal ended it), undefined while it runs. */
  exitCode(): number | null | undefined;
  /** Sends `signal` and waits (bounded, default 15 s) for the process to exit; SIGKILL when it does not. */
  kill(signal?: NodeJS.Signals, waitMs?: number): Promise<void>;
  /** Graceful stop: SIGTERM, SIGKILL after 15 s. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The command of `npm start` (package.json), with `node` as this Node binary: children run exactly as deployed,
 * heap settings included, without npm's own process in between (the script's leading `exec`, which makes the shell
 * npm starts become node, is dropped).
 */
export function serviceCommand(root = ROOT): string[] {
  const start = String(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start);
  const [node, ...args] = start
    .split(/\s+/)
    .filter(Boolean)
    .filter((word, i) => !(i === 0 && word === 'exec'));
  if (node !== 'node') throw new Error(`package.json start script must begin with node: ${start}`);
  // In the compiled tree of a whole run (scripts/build-tests.mjs) the child runs the same entry point's JavaScript.
  if (existsSync(join(root, 'src', 'main.js'))) return [process.execPath, ...compiledArgs(args)];
  return [process.execPath, ...args];
}

/** The start script's node arguments for the compiled tree: tsx's loader dropped, `src/main.ts` as `src/main.js`. */
function compiledArgs(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--import' && args[i + 1] === 'tsx') i++;
    else if (args[i] === '--import=tsx') continue;
    else out.push(args[i] === 'src/main.ts' ? 'src/main.js' : args[i]!);
  }
  return out;
}

/** Answers whether a process id is alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of the private redis-server a service started under `dataDir` (from its pid file), if the file exists. */
export function privateRedisPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'redis', 'redis.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]?.trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** Waits until `pid` is gone, at most `ms`; answers whether it is gone. */
export async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return !processAlive(pid);
}

/** GET /readyz answers 200 within a short deadline. */
async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The REST gateway's URL from the banner `npm start` prints once it listens; undefined before that. */
function gatewayUrlOf(output: string): string | undefined {
  return /REST gateway: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
}

/**
 * Waits until a starting service has printed its REST address (it binds port 0) and answers GET /readyz with 200;
 * returns that address. Throws with the service's output when it exits first or `timeoutMs` passes.
 */
export async function waitForGateway(p: {
  output: () => string;
  exited: () => boolean;
  timeoutMs: number;
}): Promise<string> {
  const deadline = Date.now() + p.timeoutMs;
  for (;;) {
    if (p.exited()) throw new Error(`service exited during start-up:\n${p.output()}`);
    const url = gatewayUrlOf(p.output());
    if (url !== undefined && (await ready(url))) return url;
    if (Date.now() > deadline)
      throw new Error(
        `service ${url ? 'did not become ready' : 'printed no REST address'} within ${p.timeoutMs} ms:\n${p.output()}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts the service as a child process and resolves once GET /readyz is 200 (throws with its output otherwise).
 * The child binds ports 0 and reports them in its banner: ports picked beforehand could be taken by another
 * test file's process before the child binds them.
 */
export async function startServiceProcess(opts: ServiceProcessOptions): Promise<ServiceProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Nothing of the test runner's own store settings leaks into the child: it gets exactly these.
  for (const k of ['REDIS_URL', 'DATABASE_URL', 'PORT', 'GRPC_PORT', 'GRPC_TARGET', 'SERVICE_ROLES', 'TEST_REDIS_URL'])
    delete env[k];
  Object.assign(env, {
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: opts.databaseUrl,
    SERVICE_BOOTSTRAP_PLATFORM_KEY: opts.platformKey,
    DATA_DIR: opts.dataDir,
    ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
    ...opts.env,
  });
  // SERVICE_NODE_ARGS adds Node flags that NODE_OPTIONS refuses (e.g. --cpu-prof for bench profiles); put just before
  // the entry script, after the start command's own flags, they override those (e.g. --max-old-space-size=4096).
  const extra = (process.env.SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const [command, ...args] = serviceCommand(opts.root);
  const child: ChildProcess = spawn(command!, [...args.slice(0, -1), ...extra, ...args.slice(-1)], {
    cwd: opts.root ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitCode: number | null | undefined;
  const exit = new Promise<void>((res) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      res();
    }),
  );
  const pid = child.pid!;
  const kill = async (signal: NodeJS.Signals = 'SIGKILL', waitMs = 15_000) => {
    if (exitCode !== undefined) return;
    child.kill(signal);
    const done = await Promise.race([
      exit.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), waitMs).unref()),
    ]);
    if (!done && exitCode === undefined) {
      child.kill('SIGKILL');
      await exit;
    }
  };
  const url = await waitForGateway({
    output: () => out,
    exited: () => exitCode !== undefined,
    timeoutMs: opts.readyTimeoutMs ?? 60_000,
  }).catch(async (err) => {
    await kill('SIGKILL');
    throw err;
  });
  return {
    url,
    platformKey: opts.platformKey,
    pid,
    dataDir: opts.dataDir,
    output: () => out,
    exited: () => exitCode !== undefined,
    exitCode: () => exitCode,
    kill,
    stop: () => kill('SIGTERM'),
  };
}

/**
 * Starts `count` service processes on shared stores with one platform key, one after the other (the first bootstraps
 * the platform, the next ones find it), each with a data directory of its own under TEST_DATA_DIR named after `name`.
 */
export async function startServiceProcesses(
  count: number,
  opts: { databaseUrl: string; redisUrl: string; platformKey: string; name: string; env?: Record<string, string> },
): Promise<ServiceProcess[]> {
  const started: ServiceProcess[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const dataDir = join(process.env.TEST_DATA_DIR ?? '/tmp', `${opts.name}-${i}-${randomBytes(4).toString('hex')}`);
      mkdirSync(dataDir, { recursive: true });
      started.push(
        await startServiceProcess({
          databaseUrl: opts.databaseUrl,
          redisUrl: opts.redisUrl,
          platformKey: opts.platformKey,
          dataDir,
          env: opts.env,
        }),
      );
    }
    return started;
  } catch (err) {
    for (const p of started) await p.kill('SIGKILL');
    throw err;
  }
}

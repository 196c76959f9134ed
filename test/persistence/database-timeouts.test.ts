import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '../../src/errors/service-error.js';
import { startEmbeddedPostgres, type PrivatePostgres } from '../../src/launcher/embedded-postgres.js';
import { runInCallScope, type CallScope } from '../../src/persistence/call-scope.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';

// A PostgreSQL of this file's own, stopped with SIGSTOP (every process of the cluster this file started, found under
// its postmaster) to hang the way a frozen host or a stalled disk does: connections stay open, nothing answers.
const dir = join(process.env.TEST_DATA_DIR ?? tmpdir(), `pg-hang-${randomBytes(4).toString('hex')}`);
let server: PrivatePostgres;
let db: Database;
// Short bounds so the file runs quickly (the service's defaults are 5 s, 2 s, 2 s and 6 s): statements and idle time in
// a transaction 800 ms (the client gives up 1 s later), lock waits 300 ms, pool waits 400 ms, call transactions 1 s.
const TIMEOUTS = { statementMs: 800, lockMs: 300, poolWaitMs: 400, transactionMs: 1000 };

test.before(async () => {
  server = await startEmbeddedPostgres({ dir });
  db = createDatabase(server.url, { max: 4, timeouts: TIMEOUTS });
  await db.query('CREATE TABLE marks (name text PRIMARY KEY)');
  // The first call transaction learns whether the server has transaction_timeout (PostgreSQL 17+; embedded: 18).
  await runInCallScope(scope(), () => db.transaction(async () => undefined));
});
test.after.always(async () => {
  if (server) for (const pid of clusterPids()) signal(pid, 'SIGCONT');
  await db?.close().catch(() => undefined);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The postmaster and every process it started (from /proc). */
function clusterPids(): number[] {
  const pids = [server.pid];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name in parentheses, which may itself contain spaces.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === server.pid) pids.push(Number(name));
    } catch {
      // The process ended while the table was read.
    }
  }
  return pids;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** Runs `work` with the whole cluster stopped, then lets it go on; answers what `work` answered. */
async function whileHung<T>(work: () => Promise<T>): Promise<T> {
  for (const pid of clusterPids()) signal(pid, 'SIGSTOP');
  try {
    return await work();
  } finally {
    for (const pid of clusterPids()) signal(pid, 'SIGCONT');
  }
}

/** Settles `p` and answers its error (or undefined when it fulfilled) and how long it took. */
async function outcome(p: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const start = Date.now();
  try {
    await p;
    return { error: undefined, ms: Date.now() - start };
  } catch (error) {
    return { error, ms: Date.now() - start };
  }
}

function assertUnavailable(t: ExecutionContext, error: unknown, what: string): void {
  t.true(error instanceof ServiceError, `${what}: ${String(error)}`);
  t.is((error as ServiceError).code, 'SERVICE_UNAVAILABLE', what);
  t.is((error as ServiceError).retryAfter, 1, what);
}

const marked = async (name: string) => (await db.query('SELECT 1 FROM marks WHERE name = $1', [name])).rowCount === 1;
const scope = (deadlineInMs = 30_000, signal = new AbortController().signal): CallScope => ({
  deadline: Date.now() + deadlineInMs,
  signal,
});

test.serial(
  'a statement on a hung server fails 503 once the client stops waiting, and the connection is dropped',
  async (t) => {
    const r = await whileHung(() => outcome(db.query('SELECT 1')));
    assertUnavailable(t, r.error, 'autocommit statement');
    t.log(`503 after ${r.ms} ms (statement_timeout ${TIMEOUTS.statementMs} ms + 1 s)`);
    // The pool works again at once: the connection that hung was not handed out again.
    t.is((await db.query('SELECT 1 AS one')).rows[0].one, 1);
  },
);

test.serial(
  'a transaction whose statement hangs fails 503 and leaves nothing behind after the server resumes',
  async (t) => {
    const r = await whileHung(() =>
      outcome(
        runInCallScope(scope(), () =>
          db.transaction(async (tx) => {
            await tx.query("INSERT INTO marks VALUES ('statement-hung')");
          }),
        ),
      ),
    );
    assertUnavailable(t, r.error, 'transaction');
    t.false(await marked('statement-hung'), 'the insert the server ran after resuming was rolled back');
  },
);

test.serial(
  'a COMMIT that reaches a hung server is refused when it resumes (fence, idle-in-transaction timeout): the 503 given meanwhile stays true',
  async (t) => {
    // The insert is answered; then the server stops and the COMMIT waits in its socket. Without the fence the server
    // would commit it on resuming, after the client was told 503.
    const r = await outcome(
      runInCallScope(scope(), () =>
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO marks VALUES ('commit-hung')");
          for (const pid of clusterPids()) signal(pid, 'SIGSTOP');
        }),
      ),
    );
    // The client waited for the fence to pass before answering: from here on the server can only refuse it.
    for (const pid of clusterPids()) signal(pid, 'SIGCONT');
    assertUnavailable(t, r.error, 'commit');
    t.true(r.ms >= TIMEOUTS.transactionMs, `the 503 came after the fence (${r.ms} ms)`);
    t.false(await marked('commit-hung'), 'the COMMIT PostgreSQL read after resuming did not commit');
  },
);

test.serial(
  'a transaction outside a call (a worker) is bounded by the statement timeouts but not fenced',
  async (t) => {
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO marks VALUES ('worker')");
      // Longer than the call fence, shorter than idle_in_transaction_session_timeout (= the statement timeout).
      await new Promise((r) => setTimeout(r, 400));
      await tx.query('SELECT 1');
      await new Promise((r) => setTimeout(r, 400));
      await tx.query('SELECT 1');
      await new Promise((r) => setTimeout(r, 400));
    });
    t.true(await marked('worker'));
  },
);

test.serial('a call transaction that outlives its fence cannot commit', async (t) => {
  const r = await outcome(
    runInCallScope(scope(), () =>
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO marks VALUES ('past-fence')");
        for (let i = 0; i < 4; i++) {
          await new Promise((res) => setTimeout(res, 350));
          await tx.query('SELECT 1');
        }
      }),
    ),
  );
  assertUnavailable(t, r.error, 'fenced transaction');
  t.false(await marked('past-fence'));
});

test.serial(
  'a call with little time left gets a nearer fence: its transaction cannot commit past the deadline',
  async (t) => {
    // Deadline in 1.1 s: the fence is 600 ms away (the deadline less the 500 ms margin), nearer than the 1 s default.
    const r = await outcome(
      runInCallScope(scope(1100), () =>
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO marks VALUES ('deadline-near')");
          for (let i = 0; i < 3; i++) {
            await new Promise((res) => setTimeout(res, 250));
            await tx.query('SELECT 1');
          }
        }),
      ),
    );
    assertUnavailable(t, r.error, 'deadline');
    t.false(await marked('deadline-near'));
  },
);

test.serial('a call cancelled while its transaction works rolls back instead of committing', async (t) => {
  const abort = new AbortController();
  const r = await outcome(
    runInCallScope(scope(30_000, abort.signal), () =>
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO marks VALUES ('cancelled')");
        abort.abort();
      }),
    ),
  );
  assertUnavailable(t, r.error, 'cancelled');
  t.false(await marked('cancelled'));
});

test.serial('a cancelled call starts no statement and no transaction', async (t) => {
  const abort = new AbortController();
  abort.abort();
  let ran = false;
  const tx = await outcome(
    runInCallScope(scope(30_000, abort.signal), () =>
      db.transaction(async () => {
        ran = true;
      }),
    ),
  );
  assertUnavailable(t, tx.error, 'transaction of a cancelled call');
  t.false(ran);
  assertUnavailable(
    t,
    (await outcome(runInCallScope(scope(30_000, abort.signal), () => db.query('SELECT 1')))).error,
    'statement of a cancelled call',
  );
});

test.serial('a lock wait past lock_timeout is 503, and the holder is unaffected', async (t) => {
  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((r) => {
    held = r;
  });
  const holder = db.transaction(async (tx) => {
    await tx.query("INSERT INTO marks VALUES ('locked')");
    held();
    await new Promise<void>((r) => {
      release = r;
    });
  });
  await holding;
  const waiter = await outcome(
    db.transaction(async (tx) => {
      await tx.query("INSERT INTO marks VALUES ('locked') ON CONFLICT DO NOTHING");
    }),
  );
  release();
  await holder;
  assertUnavailable(t, waiter.error, 'lock wait');
  t.true(await marked('locked'));
});

test.serial('waiting for a connection on a hung server is bounded by the pool wait', async (t) => {
  const { queued, fresh } = await whileHung(async () => {
    // Every connection of the pool (4) hangs on a statement: the fifth caller waits for one, within the bound.
    const hung = Promise.all([1, 2, 3, 4].map(() => outcome(db.query('SELECT 1'))));
    const queued = await outcome(db.query('SELECT 1'));
    await hung;
    // The hung connections were dropped: the next caller opens one, and the server does not answer its start-up.
    return { queued, fresh: await outcome(db.query('SELECT 1')) };
  });
  assertUnavailable(t, queued.error, 'waiting for a busy pool');
  assertUnavailable(t, fresh.error, 'opening a connection');
  t.log(
    `503 after ${queued.ms} ms waiting for a busy pool, ${fresh.ms} ms opening a connection (pool wait ${TIMEOUTS.poolWaitMs} ms)`,
  );
  t.is((await db.query('SELECT 1 AS one')).rows[0].one, 1);
});

test.serial(
  "a job's bound outlasts a call's: a slow statement, a pause and a server hung for longer than a call allows",
  async (t) => {
    const job = { boundMs: 3000 };
    const r = await outcome(
      db.transaction(async (tx) => {
        // Past statement_timeout (800 ms), within the job's 3 s.
        await tx.query('SELECT pg_sleep(1.2)');
        // Idle in the transaction past the call's 800 ms (the process busy elsewhere).
        await new Promise((res) => setTimeout(res, 1200));
        await tx.query('SELECT 1');
        // No answer for longer than the client waits for a call's (1.8 s), less than it waits for the job's (4 s).
        for (const pid of clusterPids()) signal(pid, 'SIGSTOP');
        const answered = tx.query('SELECT 1');
        await new Promise((res) => setTimeout(res, 2300));
        for (const pid of clusterPids()) signal(pid, 'SIGCONT');
        await answered;
        await tx.query("INSERT INTO marks VALUES ('job-bound')");
      }, job),
    );
    t.is(r.error, undefined, String(r.error));
    t.true(await marked('job-bound'));
    // The call's bounds are back for the next transaction on the same connections.
    const call = await outcome(db.transaction(async (tx) => tx.query('SELECT pg_sleep(1.2)')));
    assertUnavailable(t, call.error, 'a call transaction after the job');
  },
);

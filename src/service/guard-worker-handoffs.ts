import type { ChildProcess } from 'node:child_process';
import type { Worker } from 'node:cluster';

/** What node:cluster's primary sends a worker with an accepted connection: `{cmd, act: 'newconn', key, seq}`. */
interface ConnectionHandoff {
  cmd: 'NODE_CLUSTER';
  act: 'newconn';
  seq: number;
}

/** A worker's answer to a hand-off: `{cmd, ack: <the hand-off's seq>, accepted}`. */
interface HandoffAnswer {
  cmd: 'NODE_CLUSTER';
  ack: number;
}

const isHandoff = (m: unknown): m is ConnectionHandoff =>
  typeof m === 'object' &&
  m !== null &&
  (m as ConnectionHandoff).cmd === 'NODE_CLUSTER' &&
  (m as ConnectionHandoff).act === 'newconn' &&
  typeof (m as ConnectionHandoff).seq === 'number';

const isHandoffAnswer = (m: unknown): m is HandoffAnswer =>
  typeof m === 'object' &&
  m !== null &&
  (m as HandoffAnswer).cmd === 'NODE_CLUSTER' &&
  typeof (m as HandoffAnswer).ack === 'number';

/**
 * Keeps the primary whole and its clients answered when `worker` dies in the middle of a hand-off; call it right after
 * `cluster.fork()`.
 *
 * node:cluster's round robin keeps the primary's copy of an accepted connection open until the worker answers the
 * hand-off, and closes it only then. A worker killed before it answers (killed with the message in its pipe, or
 * handed the connection in the instant between its death and the primary noticing it) never does, so the client
 * waited for ever for a byte: once the worker has exited, the primary closes every connection it handed it that it
 * never answered for, and the client sees its connection reset and sends again, as after any cut connection. Node 20
 * to 24 have the same message shapes (ConnectionHandoff, HandoffAnswer); the service-processes test kills a worker
 * holding an unanswered hand-off and expects the reset.
 *
 * A message written to a worker that died before the primary read its death fails with EPIPE, which node reports as the
 * worker's 'error' event: without a listener that would throw in the primary and stop the whole service. It goes to
 * `onChannelError`; the worker's 'exit' follows.
 */
export function guardWorkerHandoffs(worker: Worker, onChannelError: (err: Error) => void): void {
  worker.on('error', onChannelError);
  const child: ChildProcess = worker.process;
  const unanswered = new Map<number, { close(): void }>();
  const send = child.send;
  child.send = function (this: ChildProcess, message: unknown, handle?: unknown, ...rest: unknown[]) {
    if (isHandoff(message) && typeof (handle as { close?: unknown } | undefined)?.close === 'function')
      unanswered.set(message.seq, handle as { close(): void });
    return (send as (...args: unknown[]) => boolean).call(this, message, handle, ...rest);
  } as ChildProcess['send'];
  child.on('internalMessage', (m: unknown) => {
    if (isHandoffAnswer(m)) unanswered.delete(m.ack);
  });
  child.once('exit', () => {
    // An answer still in the pipe at exit was for a process that is gone: its connection is cut either way.
    for (const handle of unanswered.values()) handle.close();
    unanswered.clear();
  });
}

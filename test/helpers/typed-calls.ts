import type { TestFn } from 'ava';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { Status } from '../../src/gen/google/rpc/status.js';
import { ErrorInfo } from '../../src/gen/google/rpc/error_details.js';

/** gRPC metadata carrying `authorization: Bearer <key>`, plus any further headers given. */
export function bearer(key: string, headers: Record<string, string> = {}): Metadata {
  const md = new Metadata();
  md.set('authorization', `Bearer ${key}`);
  for (const [k, v] of Object.entries(headers)) md.set(k, v);
  return md;
}

/** Calls the unary RPC `method` of a ts-proto generated client with `metadata`; resolves with its answer, rejects with its error. */
export function unaryCall<Res>(client: object, method: string, request: object, metadata: Metadata): Promise<Res> {
  const fn = (client as Record<string, Function>)[method];
  if (!fn) throw new Error(`the client has no method ${method}`);
  return new Promise((resolve, reject) =>
    fn.call(client, request, metadata, (err: ServiceError | null, res: Res) => (err ? reject(err) : resolve(res))),
  );
}

/** Promisifies a grpc-js unary call made with a callback: `callbackCall((cb) => client.getX(req, md, cb))`. */
export function callbackCall<T>(fn: (cb: (err: ServiceError | null, res: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res))));
}

/** The ErrorInfo of a refusal, read from `grpc-status-details-bin` as any gRPC client reads it. */
export function errorInfoOf(err: ServiceError): ErrorInfo {
  const bin = err.metadata.get('grpc-status-details-bin')[0] as Buffer;
  const detail = (Status.decode(bin).details ?? []).find((d) => d.typeUrl?.endsWith('/google.rpc.ErrorInfo'));
  if (!detail?.value) throw new Error('no ErrorInfo');
  return ErrorInfo.decode(detail.value);
}

/** A typed call expected to be refused: its gRPC code, the ErrorInfo reason and (unset if none) the field. */
export interface Refusal {
  name: string;
  call: () => Promise<unknown>;
  code: number;
  reason: string;
  field?: string;
}

/**
 * One test per refusal, titled `<title>: <name>`: the call fails with the code, its ErrorInfo carries the reason and
 * the field, and (unless `domain: false`) the domain 'scheduling.example'.
 */
export function assertRefusals(test: TestFn, title: string, cases: Refusal[], opts: { domain?: boolean } = {}): void {
  for (const r of cases) {
    test(`${title}: ${r.name}`, async (t) => {
      const err = await t.throwsAsync<ServiceError>(r.call);
      t.is(err!.code, r.code);
      const info = errorInfoOf(err!);
      t.is(info.reason, r.reason);
      if (opts.domain !== false) t.is(info.domain, 'scheduling.example');
      t.is(info.metadata?.field, r.field);
    });
  }
}

import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { service as healthService } from 'grpc-health-check';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { GRPC_SERVICES } from '../../src/grpc/service-registry.js';
import { ERROR_DOMAIN } from '../../src/grpc/error-metadata.js';
import { ErrorInfo } from '../../src/gen/google/rpc/error_details.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// Standard tools learn the API from server reflection alone: these run the real `buf curl` (the @bufbuild/buf
// package's binary) against a running service, with no proto files at hand.
const BUF = fileURLToPath(new URL('../../node_modules/.bin/buf', import.meta.url));
const PROTOCOLS = ['grpc-v1', 'grpc-v1alpha'] as const;

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** What `buf curl` printed and how it exited. */
interface Curl {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `buf curl` over plaintext HTTP/2 gRPC with the schema from server reflection, against `path` on the service. */
function bufCurl(args: string[], path = ''): Promise<Curl> {
  const url = `http://${svc.grpcTarget}${path}`;
  const argv = ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '--reflect', '--timeout', '30s', ...args, url];
  return new Promise((resolve) => {
    execFile(BUF, argv, { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The lines a listing printed, sorted. */
const lines = (out: string) =>
  out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();

/** `package.Service/Method` of each method the server serves, from the definitions it registers. */
function servedMethods(): string[] {
  const definitions: ServiceDefinition[] = [
    ...Object.values(GRPC_SERVICES).map((s) => s.definition),
    healthService as unknown as ServiceDefinition,
  ];
  return definitions.flatMap((d) => Object.values(d).map((m) => m.path.slice(1))).sort();
}

/** Whether `json` holds, at any depth, an object with the members of `wanted`. */
function hasMessage(json: unknown, wanted: Record<string, unknown>): boolean {
  if (Array.isArray(json)) return json.some((v) => hasMessage(v, wanted));
  if (!json || typeof json !== 'object') return false;
  const obj = json as Record<string, unknown>;
  return (
    Object.entries(wanted).every(([k, v]) => obj[k] === v) || Object.values(obj).some((v) => hasMessage(v, wanted))
  );
}

const servedServices = () => [...new Set(servedMethods().map((m) => m.split('/')[0]!))].sort();

for (const protocol of PROTOCOLS) {
  test(`buf curl --list-services (${protocol}) lists every served service, health included`, async (t) => {
    const res = await bufCurl(['--reflect-protocol', protocol, '--list-services']);
    t.is(res.code, 0, res.stderr);
    t.deepEqual(lines(res.stdout), servedServices());
    t.true(lines(res.stdout).includes('grpc.health.v1.Health'));
  });

  test(`buf curl --list-methods (${protocol}) lists the methods of every service from reflected descriptors`, async (t) => {
    const res = await bufCurl(['--reflect-protocol', protocol, '--list-methods']);
    t.is(res.code, 0, res.stderr);
    t.deepEqual(lines(res.stdout), servedMethods());
  });
}

test('buf curl calls ListOrganizations through reflection with a key in the authorization header', async (t) => {
  const created = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
    externalId: 'buf-curl',
    name: 'Called by buf curl',
  });
  t.is(typeof created.body.id, 'string', JSON.stringify(created.body));
  const path = '/scheduling.v1.OrganizationService/ListOrganizations';
  const res = await bufCurl(['-H', `authorization: Bearer ${svc.platformKey}`, '-d', '{}'], path);
  t.is(res.code, 0, res.stderr);
  // buf decoded the typed response with the reflected descriptors: the organization is there as a message.
  t.true(hasMessage(JSON.parse(res.stdout), { id: created.body.id, name: 'Called by buf curl' }), res.stdout);

  // The same call without a key is refused by the service, not by the tool's schema lookup.
  const refused = await bufCurl(['-d', '{}'], path);
  t.not(refused.code, 0);
  t.is(JSON.parse(refused.stderr).code, 'unauthenticated', refused.stderr);
  // buf reads the refusal's google.rpc.Status from grpc-status-details-bin and names its ErrorInfo detail.
  const details = JSON.parse(refused.stderr).details as { type: string; value: string }[];
  const info = details.find((d) => d.type === 'google.rpc.ErrorInfo');
  t.truthy(info, refused.stderr);
  const decoded = ErrorInfo.decode(Buffer.from(info!.value, 'base64'));
  t.like(decoded, { reason: 'UNAUTHENTICATED', domain: ERROR_DOMAIN });
});

test('buf curl checks health through reflection, for the server and for a service', async (t) => {
  for (const service of ['', 'scheduling.v1.OrganizationService']) {
    // The server's status follows a store probe each second (bounded at 1 s): on a loaded machine one probe may time
    // out and report NOT_SERVING until the next one answers, so a few checks are allowed to come before SERVING.
    const deadline = Date.now() + 10_000;
    let res = await bufCurl(['-d', JSON.stringify({ service })], '/grpc.health.v1.Health/Check');
    while (res.code === 0 && JSON.parse(res.stdout).status !== 'SERVING' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      res = await bufCurl(['-d', JSON.stringify({ service })], '/grpc.health.v1.Health/Check');
    }
    t.is(res.code, 0, res.stderr);
    t.deepEqual(JSON.parse(res.stdout), { status: 'SERVING' }, service || '(server)');
  }
});

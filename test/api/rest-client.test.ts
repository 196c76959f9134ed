import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { exampleDaysOf } from '../../src/contract/example-days.js';
import { REST_TYPES_PATH, restTypesOf } from '../../scripts/generate-rest-types.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const run = promisify(execFile);
const root = process.cwd();

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('the committed REST types are what openapi-typescript makes of the served openapi.json', async (t) => {
  const served = await (await fetch(`${svc.url}/openapi.json`)).json();
  t.is(await restTypesOf(served), readFileSync(join(root, REST_TYPES_PATH), 'utf8'));
});

// Serial: it moves the service clock, and ava runs serial tests before the others of the file.
test.serial('the served openapi.json dates its examples from the service clock, anew each day', async (t) => {
  const slotDayServed = async () => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as any;
    return doc.paths['/api/v2/resolutions'].post.requestBody.content['application/json'].example.dateRange.from;
  };
  const start = svc.clock();
  try {
    t.is(await slotDayServed(), exampleDaysOf(start).slotDay);
    svc.clock.advance(10 * 86_400_000);
    t.is(await slotDayServed(), exampleDaysOf(svc.clock()).slotDay);
    t.not(exampleDaysOf(svc.clock()).slotDay, exampleDaysOf(start).slotDay);
  } finally {
    svc.clock.set(start);
  }
});

test('examples/rest-client.ts compiles with tsc and, run with node, books through REST with typed integers', async (t) => {
  // Inside the repository, so the compiled client finds openapi-fetch in node_modules.
  const dir = mkdtempSync(join(process.env.TEST_DATA_DIR ?? resolve(root, '.test-data'), 'rest-client-'));
  try {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: { noEmit: false, outDir: join(dir, 'out'), rootDir: join(root, 'examples') },
        files: [join(root, 'examples/rest-client.ts')],
        include: [],
      }),
    );
    await run(join(root, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')]).catch(
      (err: { stdout?: string }) => {
        throw new Error(`tsc failed:\n${err.stdout}`);
      },
    );
    const o = await newOrganization(svc, 'rest-client');
    const tomorrow = new Date(svc.clock().getTime() + 86_400_000).toISOString().slice(0, 10);
    const { stdout } = await run(process.execPath, [join(dir, 'out/rest-client.js')], {
      env: {
        PATH: process.env.PATH,
        API_URL: svc.url,
        API_KEY: svc.platformKey,
        ORGANIZATION_ID: o.org.id,
        FROM: tomorrow,
      },
    });
    const lines = stdout.trim().split('\n');
    const result = JSON.parse(lines[lines.length - 1]!);
    t.is(result.bookingStatus, 'confirmed');
    t.true(result.listed >= 1);
    // The booking is the organization's, as the REST door reads it.
    const booking = (await o.api.get(`/api/v2/bookings/${result.bookingId}`)).body;
    t.is(booking.status, 'confirmed');
    t.is(booking.provider.id, result.providerId);
    t.is(booking.resolutionId, result.resolutionId);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

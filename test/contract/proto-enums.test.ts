import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One enum per concept (issue 23 item 1): the proto declares no two enums that carry the same values
 * (a key's type, a key's mode, a plan, a status...); a concept used by several messages is one named zod enum in the
 * schemas, hence one top-level proto enum.
 */

const PROTO_DIR = 'proto/scheduling/v1';

/**
 * Every enum of the proto files: its file, name and the values its members carry (`BOOKING_STATUS_PENDING` of
 * `BookingStatus` carries `pending`; `_UNSPECIFIED`, "not given", is none).
 */
function protoEnums(): { where: string; values: string[] }[] {
  const out: { where: string; values: string[] }[] = [];
  for (const file of readdirSync(PROTO_DIR).filter((f) => f.endsWith('.proto'))) {
    const text = readFileSync(join(PROTO_DIR, file), 'utf8');
    for (const m of text.matchAll(/enum (\w+) \{([^}]*)\}/g)) {
      const prefix = `${m[1]!.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_`;
      const values = [...m[2]!.matchAll(/^\s*(\w+) = \d+;/gm)]
        .map((v) => v[1]!)
        .filter((v) => v !== `${prefix}UNSPECIFIED`)
        .map((v) => (v.startsWith(prefix) ? v.slice(prefix.length) : v).toLowerCase());
      out.push({ where: `${file} ${m[1]}`, values });
    }
  }
  return out;
}

test('no two enums of the typed API carry the same values', (t) => {
  const enums = protoEnums();
  t.true(enums.length > 10, 'the proto files were read');
  const byValues = new Map<string, string[]>();
  for (const e of enums) {
    const key = [...e.values].sort().join(',');
    byValues.set(key, [...(byValues.get(key) ?? []), e.where]);
  }
  const twice = [...byValues.entries()].filter(([, where]) => where.length > 1);
  t.deepEqual(twice, [], 'each concept is one enum');
});

test('the key type, the key mode and the plan are one top-level enum each', (t) => {
  const top = new Set(protoEnums().map((e) => e.where.split(' ')[1]));
  for (const name of ['KeyType', 'KeyMode', 'Plan']) t.true(top.has(name), name);
  const resources = readFileSync(join(PROTO_DIR, 'resources.proto'), 'utf8');
  t.regex(resources, /^enum KeyMode \{/m);
  t.regex(resources, /^enum KeyType \{/m);
  t.regex(resources, /^enum Plan \{/m);
});

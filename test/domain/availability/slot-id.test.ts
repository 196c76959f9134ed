import test from 'ava';
import { decodeSlotId, encodeSlotId } from '../../../src/domain/availability/slot-id.js';

test('slot ids round-trip and are stable and url-safe', (t) => {
  const parts = { providerId: 'prv_01J', serviceId: 'svc_|"weird"', start: Date.parse('2026-03-09T13:00:00Z') };
  const id = encodeSlotId(parts);
  t.is(encodeSlotId({ ...parts }), id);
  t.regex(id, /^[A-Za-z0-9_-]+$/);
  t.deepEqual(decodeSlotId(id), parts);
  t.not(encodeSlotId({ ...parts, start: parts.start + 60_000 }), id);
});

const malformed: [string, unknown][] = [
  ['empty', ''],
  ['not a string', 42],
  ['not base64url', 'a+b/c='],
  ['not JSON', Buffer.from('hello').toString('base64url')],
  ['wrong version', Buffer.from(JSON.stringify(['s0', 'p', 's', 1])).toString('base64url')],
  ['start not an integer', Buffer.from(JSON.stringify(['s1', 'p', 's', 1.5])).toString('base64url')],
  ['empty provider id', Buffer.from(JSON.stringify(['s1', '', 's', 1])).toString('base64url')],
  ['extra element', Buffer.from(JSON.stringify(['s1', 'p', 's', 1, 2])).toString('base64url')],
  ['non-canonical spelling', `${encodeSlotId({ providerId: 'p', serviceId: 's', start: 1 })}A`],
];
for (const [title, id] of malformed) {
  test(`decodeSlotId refuses ${title}`, (t) => {
    t.is(decodeSlotId(id), null);
  });
}

test('slot ids are the base64url of the UTF-8 JSON tuple, so ids issued earlier stay valid', (t) => {
  for (const parts of [
    { providerId: 'prv_1', serviceId: 'svc_1', start: 0 },
    { providerId: 'prv_é', serviceId: 'svc_✓', start: 1_767_225_600_000 },
    { providerId: 'p😀', serviceId: 's/+?', start: -1 },
    { providerId: 'pp', serviceId: 'ss', start: Number.MAX_SAFE_INTEGER },
  ]) {
    const id = Buffer.from(JSON.stringify(['s1', parts.providerId, parts.serviceId, parts.start]), 'utf8').toString(
      'base64url',
    );
    t.is(encodeSlotId(parts), id);
    t.deepEqual(decodeSlotId(id), parts);
  }
});

import fc from 'fast-check';
import type { Marker, WireValue } from './fuzz-request.js';

/**
 * The values a fuzz run sends where a field, a parameter or a header should be: strings that break storage or
 * parsing (U+0000, lone surrogates, invalid dates, injections), numbers past every bound, wrong JSON types, deep
 * nesting, long strings and long arrays.
 */

/** Strings that have broken services before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\u{1f600}',
  'e\u0301',
  '\u202e',
  '\ufeff',
  '\u2028',
  '\u0085',
  '\u00a0',
  '%00',
  '%ff',
  '%',
  '%%',
  '../..',
  '/',
  '?a=b',
  '#',
  '{}',
  '[]',
  'null',
  'true',
  '0',
  '-1',
  '1e400',
  'NaN',
  'Infinity',
  '2026-02-30',
  '2026-13-01',
  '2026-05-04T25:00:00Z',
  '9999-12-31',
  '0000-01-01',
  '+275760-09-13',
  '24:00',
  '23:60',
  '-01:00',
  "'; DROP TABLE providers; --",
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '\\',
  '"',
  '\r\n',
  '\t',
  'service_test_',
  'prv_',
  'res_01jv3m8k2q0005t7w9c4x6b8dz',
  'Bearer',
  '__proto__',
  'constructor',
  'America/Nowhere',
  'Etc/GMT+14',
  '\u00ff\u00fe',
  '\u{10ffff}',
  'ACTIVE',
  'Active ',
  'en-US',
  'xx',
  '*',
  '.*',
  'ℌ',
  '1'.repeat(40),
];

/** JSON number tokens JSON.stringify cannot write. */
const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '0.000000000000000000000000000001',
  '-0',
  '1E+2',
  '1.0',
  '1e-400',
  '9007199254740993',
];

/** Numbers at and past the bounds of every integer and float field. */
const NUMBERS = [
  0,
  -1,
  0.5,
  1.5,
  2 ** 31,
  2 ** 32 + 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  Number.MIN_VALUE,
  -1e308,
  101,
  1001,
  86_401,
];

/** A long string: over a field's limit (200, 1,000, 5,000 characters), or far past it, of one repeated unit. */
export const longString: fc.Arbitrary<Marker> = fc.record({
  $repeat: fc.constantFrom('x', 'é', '\u{1f600}', '\u0000', '\ud800', ' '),
  times: fc.constantFrom(201, 1001, 5001, 20_000, 300_000),
});

/** Text for a JSON string, a path segment or a query value. */
export const fuzzText: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 1, arbitrary: longString },
);

/** A value of any JSON type, mostly one a field does not expect. */
export const fuzzValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fuzzText },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t): Marker => ({ $raw: t })) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], [''], { '': 1 }) },
  {
    weight: 1,
    arbitrary: fc.record({
      $deep: fc.constantFrom(8, 9, 31, 33, 100, 1000, 100_000),
      kind: fc.constantFrom('array' as const, 'object' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      $items: fc.constantFrom<unknown>('en', 1, null, {}, 'x'.repeat(50)),
      times: fc.constantFrom(101, 501, 5000),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 49, max: 120 })
      .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Keys a body should not have. */
export const fuzzKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    '',
    '\u0000',
    'toString',
    'hasOwnProperty',
    'id',
    'organizationId',
    'platformId',
    'status',
    'unknownField',
    'x'.repeat(300),
    '\ud800',
  ),
  fc.string({ unit: 'binary', maxLength: 10 }),
);

/** Bytes of a body that is not what its Content-Type says (latin1: one char, one byte). */
export const fuzzBodyBytes: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{"a":"\xff\xfe"}',
    '\xef\xbb\xbf{}',
    '\xff\xfe{\x00}\x00',
    '{',
    '{"a":',
    '[1,2',
    '{"a":1}}',
    'null',
    '"text"',
    '123',
    'true',
    '\x00',
    '{"\\u0000":1}',
    '{"a":"\\ud800"}',
    "{'a':1}",
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":01}',
    '{"a":1,}',
    '[]',
    '{}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '\xc0\x80',
    '\xed\xa0\x80',
    '\x1f\x8b\x08\x00\x00\x00\x00\x00',
    'a=1&b=2',
    '<xml/>',
    ' ',
    '\r\n',
    '{"a":"\xed\xa0\x80"}',
    '{"a":"\xc3"}',
    '{"a":1e400}',
    `{"a":${'9'.repeat(400)}}`,
    '{"a":"\\uD800\\uDC00"}',
    '{"a":"\\x41"}',
    '{"a":1} {"b":2}',
  ),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
);

/** A path segment or query value that is text on the wire, percent-encoded or raw (bytes 0x21-0xff as they are). */
export const fuzzWireText: fc.Arbitrary<WireValue> = fc.oneof(
  { weight: 5, arbitrary: fuzzText.map((value): WireValue => ({ value, encoding: 'uri' })) },
  {
    weight: 1,
    arbitrary: fc
      .string({
        unit: fc.integer({ min: 0x21, max: 0xff }).map((c) => String.fromCharCode(c)),
        minLength: 1,
        maxLength: 8,
      })
      .map((value): WireValue => ({ value, encoding: 'raw' })),
  },
);

/** Header text Node can send: tabs, printable ASCII and bytes 0x80-0xff (invalid UTF-8 as latin1). */
export const fuzzHeaderText: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'null',
      '0',
      '-1',
      '\xff',
      '\xff\xfe',
      'a\tb',
      '\x80abc',
      'é',
      '%00',
      '__proto__',
      'Bearer',
      'ÿ'.repeat(20),
      'x'.repeat(256),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc
        .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9))
        .map((c) => String.fromCharCode(c)),
      maxLength: 30,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ $repeat: fc.constantFrom('x', '\xff'), times: fc.constantFrom(300, 5000, 20_000) }),
  },
);

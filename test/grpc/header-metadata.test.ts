import test from 'ava';
import { Metadata } from '@grpc/grpc-js';
import { headerFromMetadata, setHeaderMetadata } from '../../src/grpc/header-metadata.js';

/** Header values as Node reads them (latin1 text), some of which gRPC text metadata refuses (found by the fuzz, issue 15). */
const VALUES = [
  'Bearer service_test_abc',
  '',
  'a\tb',
  '\xff\xfe',
  'Bearer service_test_x\xff',
  'é',
  '\x80abc',
  ' padded ',
];

for (const value of VALUES) {
  test(`a header value travels as the REST door read it: ${JSON.stringify(value)}`, (t) => {
    const md = new Metadata();
    t.notThrows(() => setHeaderMetadata(md, 'authorization', value));
    t.is(headerFromMetadata(md, 'authorization'), value);
  });
}

test('printable ASCII stays text metadata; anything else goes as -bin', (t) => {
  const md = new Metadata();
  setHeaderMetadata(md, 'service-organization-id', 'org_1');
  setHeaderMetadata(md, 'idempotency-key', 'k\tk');
  t.is(md.get('service-organization-id')[0], 'org_1');
  t.deepEqual(md.get('idempotency-key'), []);
  t.deepEqual(md.get('idempotency-key-bin')[0], Buffer.from('k\tk', 'latin1'));
  t.is(headerFromMetadata(md, 'accept'), undefined);
});

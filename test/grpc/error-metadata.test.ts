import test from 'ava';
import type { Metadata } from '@grpc/grpc-js';
import { decodeServiceError, encodeServiceError } from '../../src/grpc/error-metadata.js';
import { ServiceError } from '../../src/errors/service-error.js';

test('an error naming a field that is not printable ASCII, or a message with a lone surrogate, still encodes and decodes', (t) => {
  for (const field of ['\u{1f600}key', 'k\u0000', 'caf\u00e9', '\ud800x']) {
    const err = new ServiceError('VALIDATION_ERROR', `Unrecognized key: "${field}"`, { field });
    const encoded = encodeServiceError(err) as { metadata: Metadata; details: string; code: number };
    t.notThrows(() => encodeURI(encoded.details), 'grpc-js percent-encodes the message');
    const decoded = decodeServiceError({ ...encoded, message: encoded.details, name: 'Error' } as never);
    t.is(decoded.code, 'VALIDATION_ERROR');
    t.is(
      decoded.field,
      field === '\ud800x' ? '\ufffdx' : field,
      'a lone surrogate has no UTF-8 form: it comes back as U+FFFD',
    );
  }
  const ascii = encodeServiceError(new ServiceError('VALIDATION_ERROR', 'bad', { field: 'customer.email' })) as {
    metadata: Metadata;
  };
  t.is(ascii.metadata.get('error-field')[0], 'customer.email', 'a printable field stays in error-field');
});

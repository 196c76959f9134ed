import type { Metadata } from '@grpc/grpc-js';

/** What gRPC allows in a text metadata value: printable ASCII (grpc-js throws on anything else). */
const TEXT_VALUE = /^[\x20-\x7e]*$/;

/**
 * Puts a request header into call metadata as the REST door received it: as text when gRPC can carry it as text,
 * else its bytes (HTTP header text is latin1, as Node reads it) under `<name>-bin`. A tab, `é` or a 0xff byte in
 * `Authorization` then reaches the server, which judges it like any other bad value, instead of failing the gateway.
 */
export function setHeaderMetadata(md: Metadata, name: string, value: string): void {
  if (TEXT_VALUE.test(value)) md.set(name, value);
  else md.set(`${name}-bin`, Buffer.from(value, 'latin1'));
}

/** Reads a header set by `setHeaderMetadata` (or by any gRPC client, as text or `-bin`): its first value, or undefined. */
export function headerFromMetadata(md: Metadata, name: string): string | undefined {
  const text = md.get(name)[0];
  if (text !== undefined) return typeof text === 'string' ? text : text.toString('latin1');
  const bytes = md.get(`${name}-bin`)[0];
  if (bytes === undefined) return undefined;
  return typeof bytes === 'string' ? bytes : bytes.toString('latin1');
}

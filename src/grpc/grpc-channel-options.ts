import type { ChannelOptions } from '@grpc/grpc-js';

const MiB = 1024 * 1024;

/** Largest request message the server reads. */
const MAX_REQUEST_BYTES = 4 * MiB;
/** Largest answer the server sends. */
const MAX_ANSWER_BYTES = 64 * MiB;

/**
 * The transport settings of the internal API, both ends (grpc-js channel options; docs/internal-api.md "Transport
 * limits"). grpc-js servers do not police client pings (no `grpc.http2.min_ping_interval_without_data_ms`
 * or ping strikes, unlike gRPC C-core and Go), so a client may send keepalive pings at any rate, with or without calls.
 */
export const GRPC_CHANNEL_OPTIONS = {
  server: {
    // The gateway caps REST bodies at 1 MB and sends them as JSON text, so its messages stay just above 1 MB; a direct
    // caller may send the body as a google.protobuf.Value, whose encoding of the same document is larger (9 bytes per
    // number, a tag and length per field). 4 MB leaves that room and bounds what one call makes the server buffer.
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    // Answers are pages, single resources and reports: far smaller. The bound only stops a runaway answer (it then
    // fails RESOURCE_EXHAUSTED, logged as a transport failure); the gateway's receive limit is the same.
    'grpc.max_send_message_length': MAX_ANSWER_BYTES,
    // Per connection. The gateway multiplexes its unary calls on one connection and its event streams (followed actors)
    // on another (grpc-clients.ts), so streams never take unary calls' places; the bound sits far above the admission
    // limit of the one and MAX_STREAMS_PER_PROCESS (at most 900) of the other. Calls over it wait in the client for a
    // free stream, they do not fail; except on Node.js 24, whose http2 server refuses (RESOURCE_EXHAUSTED) a waiting
    // call sent the instant the client's cancel of another frees its place: one more reason never to fill a connection.
    'grpc.max_concurrent_streams': 1000,
    // The server pings each connection every minute and drops it when no answer comes within 20 s, so the streams of
    // a client host that vanished without closing its TCP connection (a followed actor, a long call) end.
    'grpc.keepalive_time_ms': 60_000,
    'grpc.keepalive_timeout_ms': 20_000,
    // Connections are re-made every ~30 min (grpc-js adds ±10% jitter) so clients spread again over grpc processes
    // behind one address after a scale-out. GOAWAY lets running calls finish: no grace limit, so a followed actor is
    // never cut. No idle limit: pings do not count as activity in grpc-js, so one would close connections clients
    // keep warm with keepalive pings.
    'grpc.max_connection_age_ms': 30 * 60_000,
  } satisfies ChannelOptions,
  client: {
    // Matched to the server: what it would refuse is refused before it is sent, and every answer it may send is read.
    'grpc.max_send_message_length': MAX_REQUEST_BYTES,
    'grpc.max_receive_message_length': MAX_ANSWER_BYTES,
    // A ping every 10 s, with or without calls, answered within 10 s: a dead connection is found in at most ~20 s
    // instead of at each call's deadline, and the first call after a quiet spell does not land on a dead one.
    'grpc.keepalive_time_ms': 10_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
  } satisfies ChannelOptions,
};

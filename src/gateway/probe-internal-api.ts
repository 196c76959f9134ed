import { credentials, makeGenericClientConstructor, type ChannelInterface } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

/** What a probe of the internal API found: serving, not serving (its stores are unreachable), or no answer in time. */
export type InternalApiState = 'serving' | 'not-serving' | 'no-answer';

interface HealthClient {
  check(
    req: { service: string },
    opts: { deadline: number },
    cb: (err: unknown, res: { status: string | number } | undefined) => void,
  ): void;
}

/**
 * Returns a probe that asks gRPC health (service `""`) on `channel`, the one the gateway's unary calls use
 * (createGrpcClients), bounded by `timeoutMs`: a connection that cannot take another call (every concurrent-call place
 * taken, or the server gone) fails readiness like an unreachable store does, instead of a side connection reporting
 * the server well while API calls wait. The channel stays its clients' to close.
 */
export function probeInternalApi(channel: ChannelInterface, timeoutMs: number): () => Promise<InternalApiState> {
  const Health = makeGenericClientConstructor(healthService as never, 'Health');
  const health = new Health(channel.getTarget(), credentials.createInsecure(), {
    channelOverride: channel,
  }) as unknown as HealthClient;
  return () =>
    new Promise((resolve) =>
      health.check({ service: '' }, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err || !res) resolve('no-answer');
        else resolve(res.status === 'SERVING' || res.status === 1 ? 'serving' : 'not-serving');
      }),
    );
}

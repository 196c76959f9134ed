import { ownCpuMs, processTreeCpuMs } from './process-cpu.js';
import { sampleRss } from './process-rss.js';

/** The processes whose resources a scenario reports. */
export interface ProbedProcesses {
  /** The service process(es) under load (or the raw baseline server). */
  service: readonly number[];
  /** The postmaster; its backends are counted with it. */
  postgres?: number | undefined;
  redis?: number | undefined;
}

/** Resources used between a probe's start and stop. */
export interface ResourceUse {
  /** CPU time (ms, user + system) of each party over the phase. */
  serviceCpuMs: number;
  postgresCpuMs: number;
  redisCpuMs: number;
  /** This process: the load generator. */
  generatorCpuMs: number;
  /** Peak resident set size of each service process (MB), from 100 ms samples. */
  serviceRssPeakMb: number[];
}

/** Reads the CPU of every party now and samples the service's RSS until `stop`, which answers what was used. */
export function startResourceProbe(p: ProbedProcesses): { stop(): ResourceUse } {
  const cpu = () => ({
    service: p.service.reduce((s, pid) => s + processTreeCpuMs(pid), 0),
    postgres: p.postgres ? processTreeCpuMs(p.postgres) : 0,
    redis: p.redis ? processTreeCpuMs(p.redis) : 0,
    generator: ownCpuMs(),
  });
  const before = cpu();
  const rss = sampleRss(p.service);
  return {
    stop() {
      const peaks = rss.stop();
      const after = cpu();
      return {
        serviceCpuMs: after.service - before.service,
        postgresCpuMs: after.postgres - before.postgres,
        redisCpuMs: after.redis - before.redis,
        generatorCpuMs: after.generator - before.generator,
        serviceRssPeakMb: peaks.map((b) => b / 2 ** 20),
      };
    },
  };
}

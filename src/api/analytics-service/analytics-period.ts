import type { z } from 'zod';
import { AnalyticsPeriod as PeriodMessage } from '../../gen/scheduling/v1/resources.js';
import { AnalyticsQuery, type AnalyticsPeriod } from '../../contract/schemas/analytics.js';
import type { RequestProblems } from '../request-problems.js';

type Period = z.infer<typeof AnalyticsPeriod>;

/** The period a request names; UNSPECIFIED: not given. */
const PERIOD_OF: Partial<Record<PeriodMessage, Period>> = {
  [PeriodMessage.ANALYTICS_PERIOD_LAST_7_DAYS]: 'last_7_days',
  [PeriodMessage.ANALYTICS_PERIOD_LAST_30_DAYS]: 'last_30_days',
  [PeriodMessage.ANALYTICS_PERIOD_LAST_90_DAYS]: 'last_90_days',
};

const PERIOD_DAYS: Record<Period, number> = { last_7_days: 7, last_30_days: 30, last_90_days: 90 };
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Reads a request's `analytics_period` (REST `period`) with the contract's rule into `problems`: a value outside the
 * enum is refused on `period` as the REST door refuses an unknown name; UNSPECIFIED is not given.
 */
export function readAnalyticsPeriod(problems: RequestProblems, value: PeriodMessage | undefined): Period | undefined {
  if (value === undefined || value === PeriodMessage.ANALYTICS_PERIOD_UNSPECIFIED) return undefined;
  return problems.check('period', AnalyticsQuery.shape.period, PERIOD_OF[value] ?? value);
}

/** The window `(now - N days, now]` of a period (default last_30_days), and the period's name as answered. */
export function analyticsPeriodWindow(asked: Period | undefined, now: Date) {
  const period = asked ?? 'last_30_days';
  return { period, from: new Date(now.getTime() - PERIOD_DAYS[period] * DAY_MS), to: now };
}

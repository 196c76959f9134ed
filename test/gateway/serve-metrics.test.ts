import test from 'ava';
import { bearerMatches } from '../../src/gateway/serve-metrics.js';
import { loadConfig } from '../../src/config/load-config.js';

const TOKEN = 'a3f1c9e07b2d4e58a3f1c9e07b2d4e58';

for (const [authorization, matches] of [
  [`Bearer ${TOKEN}`, true],
  [`bearer ${TOKEN}`, true],
  [`Bearer  ${TOKEN} `, true],
  ['', false],
  ['Bearer', false],
  ['Bearer ', false],
  [TOKEN, false],
  [`Bearer ${TOKEN.slice(0, -1)}`, false],
  [`Bearer ${TOKEN}0`, false],
  [`Bearer ${TOKEN.toUpperCase()}`, false],
  [`Bearer ${TOKEN} extra`, false],
  [`Basic ${TOKEN}`, false],
] as const)
  test(`METRICS_TOKEN check: ${JSON.stringify(authorization.replace(TOKEN, '<token>'))} ${matches ? 'matches' : 'does not match'}`, (t) => {
    t.is(bearerMatches(authorization, TOKEN), matches);
  });

test('METRICS_TOKEN and METRICS_PORT: unset by default; a short token fails start-up with a message saying why', (t) => {
  const defaults = loadConfig({});
  t.is(defaults.metricsToken, undefined);
  t.is(defaults.metricsPort, undefined);
  t.like(loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9464' }), { metricsToken: TOKEN, metricsPort: 9464 });
  t.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), { message: /METRICS_TOKEN must be at least 16 characters/ });
  t.throws(() => loadConfig({ METRICS_PORT: 'x' }), { message: /METRICS_PORT/ });
});

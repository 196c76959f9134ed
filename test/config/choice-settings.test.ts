import test from 'ava';
import { loadConfig } from '../../src/config/load-config.js';

// Settings that take one of a few words: case and spaces forgiven, anything else stops start-up naming the choices.

test('DATABASE_POOL_MODE and LOG_LEVEL: defaults, any case, and a bad value naming the setting and its values', (t) => {
  const defaults = loadConfig({});
  t.is(defaults.databasePoolMode, 'auto');
  t.is(defaults.logLevel, 'info');
  const set = loadConfig({ DATABASE_POOL_MODE: ' Transaction ', LOG_LEVEL: 'WARN' });
  t.is(set.databasePoolMode, 'transaction');
  t.is(set.logLevel, 'warn');
  t.throws(() => loadConfig({ DATABASE_POOL_MODE: 'session' }), {
    message: 'DATABASE_POOL_MODE must be one of auto, direct, transaction, got "session"',
  });
  t.throws(() => loadConfig({ LOG_LEVEL: 'verbose' }), {
    message: /^LOG_LEVEL must be one of .*silent.*got "verbose"$/,
  });
});

/**
 * Lua scripts of the actor store. Every key they touch is an actor key under one hash tag `{kind:id}`
 * (KEYS: state hash, history list, timers zset, outbox list), so each script is one atomic step even on a cluster.
 * Each write announces the new revision on the actor's shard channel (`actorChangesChannel`: the state key plus
 * `:changed`, same slot) for live followers; with no subscriber, SPUBLISH costs a lookup and sends nothing.
 */

// Shared tail. ARGV from index `first`: historyEntry, historyLimit, timerCount, timer (name, dueMs) pairs, outbox payloads.
// Then every actor key gets the actor's expireAt (kept in the state hash), so history, timers and outbox die with it.
const APPEND_EFFECTS = (first: number) => `
redis.call('RPUSH', KEYS[2], ARGV[${first}])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[${first + 1}]), -1)
local n = tonumber(ARGV[${first + 2}])
local i = ${first + 3}
for _ = 1, n do
  redis.call('ZADD', KEYS[3], ARGV[i + 1], ARGV[i])
  i = i + 2
end
for k = i, #ARGV do
  redis.call('RPUSH', KEYS[4], ARGV[k])
end
local exp = redis.call('HGET', KEYS[1], 'expireAt')
if exp then
  for _, key in ipairs(KEYS) do
    redis.call('PEXPIREAT', key, exp)
  end
end`;

/**
 * Creates an actor unless it exists. ARGV: snapshot, machineVersion, now (ISO), expireAtMs or '', then APPEND_EFFECTS.
 * Returns 1, or 0 when the actor exists.
 */
export const CREATE_ACTOR = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'snapshot', ARGV[1], 'revision', 1, 'machineVersion', ARGV[2], 'createdAt', ARGV[3], 'updatedAt', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'expireAt', ARGV[4])
end
${APPEND_EFFECTS(5)}
redis.call('SPUBLISH', KEYS[1] .. ':changed', '1')
return 1`;

/**
 * Writes a new snapshot if the stored revision is still the one read (compare-and-set).
 * ARGV: expectedRevision, snapshot, machineVersion, now (ISO), expireAtMs or '', then APPEND_EFFECTS.
 * Returns the new revision, -1 when the actor is gone, -2 on a revision conflict.
 */
export const COMPARE_AND_SET_ACTOR = `
local cur = redis.call('HGET', KEYS[1], 'revision')
if not cur then
  return -1
end
if cur ~= ARGV[1] then
  return -2
end
local rev = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'snapshot', ARGV[2], 'revision', rev, 'machineVersion', ARGV[3], 'updatedAt', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'expireAt', ARGV[5])
end
${APPEND_EFFECTS(6)}
redis.call('SPUBLISH', KEYS[1] .. ':changed', tostring(rev))
return rev`;

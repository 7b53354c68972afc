package redisbackend

import "github.com/redis/go-redis/v9"

// Every mutation is one of these scripts, so Redis applies it whole or not at all: the bytes,
// the folder indexes, the clock and the memo move together. Each script checks everything it
// needs before its first write, because Redis does not roll back a script that fails halfway.
//
// Conditional mutations compare the stored bytes with the expected bytes inside Redis: the
// old content travels with the request, so the comparison is exact rather than by digest.
//
// A conditional mutation carries a random token recorded in the memo when it applies. If the
// reply is lost (the connection drops after Redis ran the script) and the client sends the
// script again, the retry finds its own token and reports success instead of a conflict.
// The memo keeps tokens for a minute; it is a record of what happened, never a lease.

// writeScript: KEYS = content, clock, memo, then the index chain from the file's folder up
// to "/". ARGV = mode ("w" always, "n" only if absent, "c" only if equal), content, old,
// token, then the field for each index key. Returns 1 if the content is now this write's.
var writeScript = redis.NewScript(`
local mode = ARGV[1]
if mode ~= 'w' then
  local cur = redis.call('GET', KEYS[1])
  local ok
  if mode == 'n' then ok = (cur == false) else ok = (cur == ARGV[3]) end
  if not ok then
    if redis.call('ZSCORE', KEYS[3], ARGV[4]) then return 1 end
    return 0
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if now <= last then now = last + 1 end
local m = string.format('%.0f', now)
redis.call('SET', KEYS[2], m)
redis.call('SET', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[5], string.len(ARGV[2]) .. ' ' .. m)
for i = 5, #KEYS do
  redis.call('HSET', KEYS[i], ARGV[i + 1], '')
end
if mode ~= 'w' then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', string.format('%.0f', now - 60000000))
  redis.call('ZADD', KEYS[3], m, ARGV[4])
  redis.call('PEXPIRE', KEYS[3], 60000)
end
return 1
`)

// deleteScript: KEYS = content, clock, memo, then the index chain. ARGV = mode ("d" always,
// "c" only if equal), old, token, then the field for each index key. Folders left empty are
// removed from their parents in the same step. Returns 1 if this call deleted the file.
var deleteScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == 'c' and cur ~= ARGV[2] then
  if redis.call('ZSCORE', KEYS[3], ARGV[3]) then return 1 end
  return 0
end
if cur == false then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[4], ARGV[4])
for i = 5, #KEYS do
  if redis.call('EXISTS', KEYS[i - 1]) == 1 then break end
  redis.call('HDEL', KEYS[i], ARGV[i])
end
if ARGV[1] == 'c' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', string.format('%.0f', now - 60000000))
  redis.call('ZADD', KEYS[3], string.format('%.0f', now), ARGV[3])
  redis.call('PEXPIRE', KEYS[3], 60000)
end
return 1
`)

// readPrefixScript: KEYS = content; ARGV = the last byte offset wanted, or -1 for none.
// Returns nil for a missing file, so "absent" and "empty" stay distinct.
var readPrefixScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local last = tonumber(ARGV[1])
if last < 0 then return '' end
return redis.call('GETRANGE', KEYS[1], 0, last)
`)

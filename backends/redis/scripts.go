package redisbackend

import "github.com/redis/go-redis/v9"

// Every mutation is one of these scripts, so Redis applies it whole or not at all: the bytes,
// the folder indexes of the group, the clock, the memo and the change event move together.
// Each script checks everything it needs before its first write, because Redis does not
// roll back a script that fails halfway. All keys of one call share one hash tag, so one
// Cluster slot.
//
// Conditional mutations compare the stored bytes with the expected bytes inside Redis: the
// old content travels with the request, so the comparison is exact rather than by digest.
//
// A conditional mutation carries a random token recorded in the memo when it applies. If the
// reply is lost (the connection drops after Redis ran the script) and go-redis sends the
// script again, the resend finds its own token and reports success instead of a conflict.
// The memo is one key per applied token, kept for a minute; it is a record of what
// happened, never a lease.
//
// With the barrier flag set (WithReplicaAcks), a conditional call that writes nothing
// (a failed comparison, a resend found in the memo) still makes one write, refreshing the
// clock or the memo, so the WAIT sent after it on the same connection covers every write
// the script saw: a caller told "no match" can trust what it reads next to be replicated.
//
// The event published on the folder's channel is "w <len(path)> <path><content>" or
// "d <len(path)> <path>": the same script publishes it, so no subscriber can miss a change
// that landed, nor see one that did not.

// Mutation results are bit sets.
const (
	resultApplied = 1 // the call changed the file (or a resend found its own earlier change)
	resultRelink  = 2 // the group's top folder index was created or removed: fix its parent
)

// writeScript: KEYS = content, clock, memo, then the index chain from the file's folder up
// to its group folder. ARGV = mode ("w" always, "n" only if absent and not indexed, "c"
// only if equal), content, old, token, publish command ("" for none), channel, path,
// barrier flag, then the field for each index key.
var writeScript = redis.NewScript(scriptArgs + tickLua + "local m, entryFollows\n" + writeLua)

// scriptArgs names a script's KEYS and ARGV K and A, the names writeLua and refusedSwapLua
// use, so that writePairScript can run writeLua on a part of them.
const scriptArgs = "local K, A = KEYS, ARGV\n"

// tickLua defines tick(clock): the group's next modification time, now or one past the
// last one handed out, so times in a group only rise.
const tickLua = `local function tick(clock)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', clock) or '0')
  if now <= last then now = last + 1 end
  return string.format('%.0f', now)
end
`

// writeLua is writeScript's body over K and A.
const writeLua = `local mode = A[1]
if mode ~= 'w' then
  local cur = redis.call('GET', K[1])
  local ok
  if mode == 'n' then
    ok = (cur == false) and (redis.call('HEXISTS', K[4], A[9]) == 0)
  else
    ok = (cur == A[3])
  end
  if not ok then
` + refusedSwapLua + `  end
end
local relink = 0
if redis.call('EXISTS', K[#K]) == 0 then relink = 2 end
m = tick(K[2])
if not entryFollows then redis.call('SET', K[2], m) end
redis.call('SET', K[1], A[2])
redis.call('HSET', K[4], A[9], string.len(A[2]) .. ' ' .. m)
for i = 5, #K do
  redis.call('HSET', K[i], A[i + 5], '')
end
if mode ~= 'w' then
  redis.call('SET', K[3], '1', 'PX', 60000)
end
if A[5] ~= '' then
  redis.call(A[5], A[6], 'w ' .. string.len(A[7]) .. ' ' .. A[7] .. A[2])
end
return 1 + relink
`

// writePairScript: a plan file and its history entry in one call. ARGV[1] is the number of
// the plan's keys and ARGV[2] that of its arguments; then come the plan's keys and
// arguments as for writeScript, then the entry's keys (content, then the index chain of
// its folder, in the plan's group) and arguments (content, publish command, channel,
// path, then the index fields). The plan file is written first; the entry only when it
// was (a refused compare writes nothing at all), stamped one microsecond after it, so
// the entry needs no clock or memo of its own (the plan's token records the call). The
// reply is the plan's result, plus 4 when the entry was written.
var writePairScript = redis.NewScript(tickLua + `
local m, entryFollows = nil, true
local function write(K, A)
` + writeLua + `
end
local nk, na = tonumber(ARGV[1]), tonumber(ARGV[2])
local PK, PA = {}, {}
for i = 1, nk do PK[i] = KEYS[i] end
for i = 1, na do PA[i] = ARGV[i + 2] end
local p = write(PK, PA)
if p % 2 == 0 or m == nil then return p end -- refused, or a resend its memo token answered
local ek, ea = nk, na + 2 -- the entry's keys and arguments follow the plan's
local em = string.format('%.0f', tonumber(m) + 1)
redis.call('SET', PK[2], em)
redis.call('SET', KEYS[ek + 1], ARGV[ea + 1])
local fresh = redis.call('EXISTS', KEYS[ek + 2]) == 0
redis.call('HSET', KEYS[ek + 2], ARGV[ea + 5], string.len(ARGV[ea + 1]) .. ' ' .. em)
if fresh then -- a folder that exists is already linked in its parents
  for i = 3, #KEYS - ek do
    redis.call('HSET', KEYS[ek + i], ARGV[ea + i + 3], '')
  end
end
if ARGV[ea + 2] ~= '' then
  redis.call(ARGV[ea + 2], ARGV[ea + 3], 'w ' .. string.len(ARGV[ea + 4]) .. ' ' .. ARGV[ea + 4] .. ARGV[ea + 1])
end
return p + 4
`)

// deleteScript: KEYS as writeScript. ARGV = mode ("d" always, "c" only if equal), unused,
// old, token, publish command, channel, path, barrier flag, then the index fields. Folders left empty
// are removed from their parents in the same step. An index entry whose content is gone
// (evicted, or deleted behind the Backend's back) is removed by an unconditional delete,
// which is how such an entry is cleared; that reports nothing deleted. Every delete that
// changes something moves the group's clock, as every write does (FolderStamp).
var deleteScript = redis.NewScript(scriptArgs + tickLua + `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == 'c' and cur ~= ARGV[3] then
` + refusedSwapLua + `end
local applied = 1
if cur == false then
  if redis.call('HEXISTS', KEYS[4], ARGV[9]) == 0 then return 0 end
  applied = 0
end
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[4], ARGV[9])
for i = 5, #KEYS do
  if redis.call('EXISTS', KEYS[i - 1]) == 1 then break end
  redis.call('HDEL', KEYS[i], ARGV[i + 5])
end
local relink = 0
if redis.call('EXISTS', KEYS[#KEYS]) == 0 then relink = 2 end
redis.call('SET', KEYS[2], tick(KEYS[2]))
if ARGV[1] == 'c' then
  redis.call('SET', KEYS[3], '1', 'PX', 60000)
end
if ARGV[5] ~= '' then
  redis.call(ARGV[5], ARGV[6], 'd ' .. string.len(ARGV[7]) .. ' ' .. ARGV[7])
end
return applied + relink
`)

// dropScript deletes several files of one folder without a memo or a condition
// (driver.LazyDeleter). KEYS = the group's clock, the index chain from the folder up to its
// group folder, then each file's content. ARGV = the chain's length, publish command,
// channel, the chain's fields for the steps below the folder, then each file's name and
// path. Each file that was there (or only in the index) is removed and its delete
// published; a folder left empty is removed from its parents; the clock moves once if
// anything changed. Returns 2 when the group folder's index went away (relink), else 0.
var dropScript = redis.NewScript(tickLua + `
local n = tonumber(ARGV[1])
local files = #KEYS - 1 - n
local changed = false
for j = 1, files do
  local name, p = ARGV[n + 1 + 2 * j], ARGV[n + 2 + 2 * j]
  if redis.call('DEL', KEYS[1 + n + j]) + redis.call('HDEL', KEYS[2], name) > 0 then
    changed = true
    if ARGV[2] ~= '' then
      redis.call(ARGV[2], ARGV[3], 'd ' .. string.len(p) .. ' ' .. p)
    end
  end
end
if not changed then return 0 end
for i = 3, n + 1 do
  if redis.call('EXISTS', KEYS[i - 1]) == 1 then break end
  redis.call('HDEL', KEYS[i], ARGV[i + 1])
end
redis.call('SET', KEYS[1], tick(KEYS[1]))
if redis.call('EXISTS', KEYS[n + 1]) == 0 then return 2 end
return 0
`)

// stampScript: KEYS = the group's clock, the folder's index. Returns both, read at one
// instant: the clock moves with every write and delete script, and the index's size with
// every file created or removed in the folder, also by a process whose delete script does
// not move the clock.
var stampScript = redis.NewScript(`
return (redis.call('GET', KEYS[1]) or '') .. '/' .. redis.call('HLEN', KEYS[2])
`)

// readScript: KEYS = content, the index of the file's folder; ARGV = "all", or the last byte
// offset wanted (-1 for none), then the file's field. Returns the bytes, nil for a missing
// file, or the integer 1 for a file its index lists but whose content is gone.
var readScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 1 end
  return false
end
if ARGV[1] == 'all' then return redis.call('GET', KEYS[1]) end
local last = tonumber(ARGV[1])
if last < 0 then return '' end
return redis.call('GETRANGE', KEYS[1], 0, last)
`)

// unlinkScript: KEYS = a folder's index; ARGV = the field of a subfolder that was emptied.
// Removes the field and returns 1 if the folder is now empty too.
var unlinkScript = redis.NewScript(`
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return 1 end
return 0
`)

// refusedSwapLua answers a conditional write or delete whose precondition failed: 1 when the
// same token already landed (a retried call after a lost reply), else 0; with the barrier flag
// it also touches the folder clock, so a WAIT that follows covers what was read.
const refusedSwapLua = `
  local hit = redis.call('EXISTS', K[3]) == 1
  if A[8] == '1' then
    if hit then redis.call('PEXPIRE', K[3], 60000) else redis.call('SET', K[2], redis.call('GET', K[2]) or '0') end
  end
  if hit then return 1 end
  return 0
`

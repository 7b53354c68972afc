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
var writeScript = redis.NewScript(scriptArgs + tickLua + writeLua)

// scriptArgs names a script's KEYS and ARGV K and A, the names writeLua and refusedSwapLua
// use.
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
local m = tick(K[2])
redis.call('SET', K[2], m)
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

// keepScript swaps a file that exists and keeps the bytes it replaces under a fresh name
// in the same group (driver.KeepingSwapper), in 9 calls when nothing needs repair. KEYS =
// the file's content, the group's clock, the memo, the index of the file's folder, the kept
// file's content, the index of its folder, then the indexes of the file's folder's
// ancestors up to the group folder (ARGV[11] of them), then those of the kept file's
// folder. ARGV = content, old (which is also what is kept), publish command, barrier
// flag, then for the file and for the kept one each: path, channel, field in its folder;
// then ARGV[11].
//
// The old bytes travel once: they are compared and then kept. The file's own index field
// is rewritten, never created: it exists since the file does, so its folders are linked
// already, and the kept file's folder is linked in its parents only when this call creates
// it. Should the file's field be missing (an index lost to eviction), the script links both
// chains of folders and asks for a relink, as a write that creates an index does. The kept
// file is stamped one microsecond after the file, so the clock moves once, to that stamp;
// the memo token records the whole call.
var keepScript = redis.NewScript(`local K, A = KEYS, ARGV
local v = redis.call('MGET', K[1], K[2])
if v[1] ~= A[2] then
  local hit = redis.call('EXISTS', K[3]) == 1
  if A[4] == '1' then
    if hit then redis.call('PEXPIRE', K[3], 60000) else redis.call('SET', K[2], v[2] or '0') end
  end
  if hit then return 1 end
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(v[2] or '0')
if now <= last then now = last + 1 end
local m, km = string.format('%.0f', now), string.format('%.0f', now + 1)
redis.call('MSET', K[1], A[1], K[5], A[2], K[2], km)
local lost = redis.call('HSET', K[4], A[7], #A[1] .. ' ' .. m) == 1
local fresh = redis.call('EXISTS', K[6]) == 0
redis.call('HSET', K[6], A[10], #A[2] .. ' ' .. km)
redis.call('SET', K[3], '1', 'PX', 60000)
redis.call(A[3], A[6], 'w ' .. #A[5] .. ' ' .. A[5] .. A[1])
redis.call(A[3], A[9], 'w ' .. #A[8] .. ' ' .. A[8] .. A[2])
if not (lost or fresh) then return 1 end
local function link(p, first, last) -- link p's folder in the indexes K[first..last]
  local d = string.match(p, '^(.*)/')
  for i = first, last do
    local name = string.match(d, '[^/]*$')
    redis.call('HSET', K[i], name .. '/', '')
    d = string.sub(d, 1, #d - #name - 1)
  end
end
local a = tonumber(A[11])
if lost then link(A[5], 7, 6 + a) end
link(A[8], 7 + a, #K)
if lost then return 3 end
return 1
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

--[[
  Applies a game's ratings on a ladder once per game id, across every node: records the result,
  each player's new rating (with a revision), board position and history, and appends the change
  to the ladder's change stream that every node's mirror follows. A player whose rating moved
  since the caller read it (another node recorded a game of theirs a moment ago) refuses the
  whole result, so no rating is computed from a stale one.

  Input:
    KEYS[1] results          "gf:{r:<ladder>}:results"   hash gameId -> at
    KEYS[2] ratings          "gf:{r:<ladder>}:ratings"   hash player -> "<revision> <rating JSON>"
    KEYS[3] board            "gf:{r:<ladder>}:board"     sorted set player scored -standing
    KEYS[4] changes          "gf:{r:<ladder>}:changes"   stream, one entry per change: c = JSON
    KEYS[5] version          "gf:{r:<ladder>}:version"   counter, one per change (a follower sees gaps)
    KEYS[6] history prefix   "gf:{r:<ladder>}:h:"        list per player, newest first
    ARGV[1] gameId
    ARGV[2] at (ms)
    ARGV[3] change stream length kept (approximate)
    ARGV[4..] per player, 5 each: player, revision read, standing, rating JSON, history entry JSON
  Output: { 1, version } when applied, { 0 } when the game was already recorded,
          { -1, player } when that player's revision moved
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return { 0 } end
local players = {}
for i = 4, #ARGV, 5 do
  local stored = redis.call('HGET', KEYS[2], ARGV[i])
  local revision = 0
  if stored then revision = tonumber(string.sub(stored, 1, string.find(stored, ' ', 1, true) - 1)) end
  if revision ~= tonumber(ARGV[i + 1]) then return { -1, ARGV[i] } end
  table.insert(players, { ARGV[i], revision + 1, tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4] })
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local change = {}
for _, p in ipairs(players) do
  redis.call('HSET', KEYS[2], p[1], p[2] .. ' ' .. p[4])
  redis.call('ZADD', KEYS[3], -p[3], p[1])
  redis.call('LPUSH', KEYS[6] .. p[1], p[5])
  table.insert(change, { p[1], p[2], p[4], p[5] })
end
local version = redis.call('INCR', KEYS[5])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'c', cjson.encode({ v = version, g = ARGV[1], p = change }))
return { 1, version }

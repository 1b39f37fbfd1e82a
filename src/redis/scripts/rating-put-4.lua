--[[
  Sets one player's rating on a ladder outside any game (an operator's correction, a seed), with
  a new revision, and appends the change to the ladder's change stream.

  Input:
    KEYS[1] ratings   "gf:{r:<ladder>}:ratings"  hash player -> "<revision> <rating JSON>"
    KEYS[2] board     "gf:{r:<ladder>}:board"    sorted set player scored -standing
    KEYS[3] changes   "gf:{r:<ladder>}:changes"  stream
    KEYS[4] version   "gf:{r:<ladder>}:version"  counter
    ARGV[1] player
    ARGV[2] standing
    ARGV[3] rating JSON
    ARGV[4] change stream length kept (approximate)
  Output: { revision, version }
]]
local stored = redis.call('HGET', KEYS[1], ARGV[1])
local revision = 1
if stored then revision = tonumber(string.sub(stored, 1, string.find(stored, ' ', 1, true) - 1)) + 1 end
redis.call('HSET', KEYS[1], ARGV[1], revision .. ' ' .. ARGV[3])
redis.call('ZADD', KEYS[2], -tonumber(ARGV[2]), ARGV[1])
local version = redis.call('INCR', KEYS[4])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'c', cjson.encode({ v = version, p = { { ARGV[1], revision, ARGV[3], false } } }))
return { revision, version }

--[[
  A node's heartbeat and the cluster's membership view in one round trip: the node's entry is
  scored with its expiry on the Redis clock (so nodes' clocks never disagree about who is late),
  lapsed entries are dropped, and the live nodes are returned.

  Input:
    KEYS[1] members  "gf:{members}:nodes"  sorted set: nodeId scored by expiry (ms, Redis clock)
    ARGV[1] nodeId
    ARGV[2] heartbeat TTL (ms)
  Output: { wasLive (1/0), nodeId... of every live node }
]]
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 7: TIME before a write
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%.0f', now))
local wasLive = redis.call('ZSCORE', KEYS[1], ARGV[1]) and 1 or 0
redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[2])), ARGV[1])
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
table.insert(live, 1, wasLive)
return live

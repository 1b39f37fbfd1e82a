--[[
  A node's heartbeat and the cluster's membership view in one round trip: the node's entry is
  scored with its expiry on the Redis clock (so nodes' clocks never disagree about who is late),
  lapsed entries are dropped with their addresses, and the live nodes are returned with the
  client-facing address each published (what a route hint names: FindGameUpdate.owner_address).

  Input:
    KEYS[1] members    "gf:{members}:nodes"      sorted set: nodeId scored by expiry (ms, Redis clock)
    KEYS[2] addresses  "gf:{members}:addresses"  hash: nodeId -> host:port
    ARGV[1] nodeId
    ARGV[2] heartbeat TTL (ms)
    ARGV[3] this node's client-facing address, or "" while it has none yet (left as it is)
  Output: { wasLive (1/0), { nodeId... of every live node }, { address or false, per live node } }
]]
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 7: TIME before a write
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cutoff = '(' .. string.format('%.0f', now)
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)
if #lapsed > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
  redis.call('HDEL', KEYS[2], unpack(lapsed))
end
local wasLive = redis.call('ZSCORE', KEYS[1], ARGV[1]) and 1 or 0
redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[2])), ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
-- Addresses of nodes that left without this script (a clean leave, an older node's beat) go too.
if redis.call('HLEN', KEYS[2]) > #live then
  local alive = {}
  for _, id in ipairs(live) do alive[id] = true end
  for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
    if not alive[id] then redis.call('HDEL', KEYS[2], id) end
  end
end
return { wasLive, live, redis.call('HMGET', KEYS[2], unpack(live)) }

--[[
  Proposed tickets past their deadline (the game was never confirmed, or the owner died) go
  back to the line at their original priority: a fresh intake entry, the old one acknowledged.

  Input:
    KEYS[1] fence counter   "gf:{<factory>}:fence"
    KEYS[2] proposed zset   "gf:{<factory>}:proposed"
    KEYS[3] intake stream   "gf:{<factory>}:intake"
    ARGV[1] fencing token
    ARGV[2] consumer group
    ARGV[3] now (ms)
    ARGV[4] at most this many
    ARGV[5] ticket key prefix "gf:{<factory>}:t:"
  Output: { -1 } stale token, else the requeued ticket ids
]]
--- @include "includes/fence"
if not fenceHolds(KEYS[1], ARGV[1]) then return { -1 } end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
for _, ticketId in ipairs(expired) do
  local key = ARGV[5] .. ticketId
  local t = redis.call('HMGET', key, 'state', 'priority', 'entry')
  redis.call('ZREM', KEYS[2], ticketId)
  if t[1] == 'proposed' then
    if t[3] then redis.call('XACK', KEYS[3], ARGV[2], t[3]) end
    redis.call('HSET', key, 'state', 'waiting')
    redis.call('HDEL', key, 'entry')
    redis.call('XADD', KEYS[3], '*', 'ticket', ticketId, 'priority', t[2])
  end
end
return expired

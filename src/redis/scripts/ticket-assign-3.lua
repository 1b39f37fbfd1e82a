--[[
  The server confirmed the game: proposed tickets become assigned, exactly once, and their
  intake entries are acknowledged. A stale owner (older token) cannot assign anything.

  Input:
    KEYS[1] fence counter   "gf:{<factory>}:fence"
    KEYS[2] proposed zset   "gf:{<factory>}:proposed"
    KEYS[3] intake stream   "gf:{<factory>}:intake"
    ARGV[1] fencing token
    ARGV[2] consumer group
    ARGV[3] assignment (e.g. JSON: server, game, connection)
    ARGV[4] ticket key prefix "gf:{<factory>}:t:"
    ARGV[5..] ticketIds
  Output: { 1 } assigned, { -1 } stale token, { 0, ticketId, its state } a ticket is not proposed
]]
--- @include "includes/fence"
if not fenceHolds(KEYS[1], ARGV[1]) then return { -1 } end
for i = 5, #ARGV do
  local state = redis.call('HGET', ARGV[4] .. ARGV[i], 'state')
  if state ~= 'proposed' then return { 0, ARGV[i], state or 'unknown' } end
end
for i = 5, #ARGV do
  local key = ARGV[4] .. ARGV[i]
  local entry = redis.call('HGET', key, 'entry')
  redis.call('HSET', key, 'state', 'assigned', 'assignment', ARGV[3])
  redis.call('ZREM', KEYS[2], ARGV[i])
  if entry then redis.call('XACK', KEYS[3], ARGV[2], entry) end
end
return { 1 }

--[[
  The factory's owner puts waiting tickets into one proposed game, all or none. Proposed tickets
  that are not assigned by the deadline return to the line on their own (ticket-requeue-expired).

  Input:
    KEYS[1] fence counter    "gf:{<factory>}:fence"
    KEYS[2] proposed zset    "gf:{<factory>}:proposed"  ticketId by deadline
    ARGV[1] fencing token
    ARGV[2] deadline (ms)
    ARGV[3] ticket key prefix "gf:{<factory>}:t:"
    ARGV[4..] ticketId, intake entry id, ticketId, intake entry id, ...
  Output: { 1 } proposed, { -1 } stale token, { 0, ticketId, its state } a ticket is not waiting
]]
--- @include "includes/fence"
if not fenceHolds(KEYS[1], ARGV[1]) then return { -1 } end
for i = 4, #ARGV, 2 do
  local state = redis.call('HGET', ARGV[3] .. ARGV[i], 'state')
  if state ~= 'waiting' then return { 0, ARGV[i], state or 'unknown' } end
end
for i = 4, #ARGV, 2 do
  redis.call('HSET', ARGV[3] .. ARGV[i], 'state', 'proposed', 'entry', ARGV[i + 1])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[i])
end
return { 1 }

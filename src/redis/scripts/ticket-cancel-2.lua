--[[
  The client cancelled: a waiting or proposed ticket is cancelled; an assigned one stays assigned
  (the assignment won the race). The owner skips cancelled tickets it reads later.

  Input:
    KEYS[1] ticket hash    "gf:{<factory>}:t:<ticketId>"
    KEYS[2] proposed zset  "gf:{<factory>}:proposed"
    ARGV[1] ticketId
  Output: the state before ("waiting", "proposed", "assigned", "cancelled"), or nil when unknown
]]
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'waiting' or state == 'proposed' then
  redis.call('HSET', KEYS[1], 'state', 'cancelled')
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return state

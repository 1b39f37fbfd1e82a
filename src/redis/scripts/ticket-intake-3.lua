--[[
  A FindGame reaches Redis: the ticket is stored (keyed by its id) and appended to its factory's
  intake stream, which the factory's owner reads with a consumer group. The same ticket id again
  is a resume: nothing is written and the stored state is returned (its place or assignment).

  Input:
    KEYS[1] ticket hash      "gf:{<factory>}:t:<ticketId>"
    KEYS[2] intake stream    "gf:{<factory>}:intake"
    KEYS[3] arrival counter  "gf:{<factory>}:arrival"  (original priority)
    ARGV[1] ticketId
    ARGV[2] payload
  Output: { 1 if new else 0, state, priority, assignment or "" }
]]
local t = redis.call('HMGET', KEYS[1], 'state', 'priority', 'assignment')
if t[1] then return { 0, t[1], tonumber(t[2]), t[3] or '' } end
local priority = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], 'state', 'waiting', 'priority', priority, 'payload', ARGV[2])
redis.call('XADD', KEYS[2], '*', 'ticket', ARGV[1], 'priority', priority)
return { 1, 'waiting', priority, '' }

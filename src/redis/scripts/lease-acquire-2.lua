--[[
  Takes (or renews) a factory's lease. A new holder gets a new fencing token (INCR), so any
  write still in flight from the previous holder is refused by fenced scripts.

  Input:
    KEYS[1] lease key      "gf:{<factory>}:lease"  value "<token>:<nodeId>"
    KEYS[2] fence counter  "gf:{<factory>}:fence"
    ARGV[1] nodeId
    ARGV[2] lease time (ms)
  Output: { 1, token } when this node holds the lease now, { 0, ms left } when another does
]]
local held = redis.call('GET', KEYS[1])
if held then
  local sep = string.find(held, ':', 1, true)
  if string.sub(held, sep + 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return { 1, tonumber(string.sub(held, 1, sep - 1)) }
  end
  return { 0, redis.call('PTTL', KEYS[1]) }
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. ':' .. ARGV[1], 'PX', ARGV[2])
return { 1, token }

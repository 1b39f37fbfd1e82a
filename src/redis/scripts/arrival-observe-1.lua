--[[
  A restored ticket's arrival number was handed out before: later INCRs must answer more.
  Never moves the counter back.

  Input:
    KEYS[1] the arrival counter  "gf:{arrival}:seq" or "gf:{<factory>}:arrival"
    ARGV[1] the observed arrival number
  Output: the counter after the call
]]
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local seen = tonumber(ARGV[1])
if seen > current then
  redis.call('SET', KEYS[1], ARGV[1])
  return seen
end
return current

--[[
  A server advertises new capacity. Starts already spent carry over to the new rate, so
  re-advertising does not refill the burst (StartRateBucket.withRate).

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (ms)
    ARGV[2] policy
    ARGV[3] serverId
    ARGV[4] maxGames
    ARGV[5] maxStartsPerSecond
  Output: 1, or 0 for an unknown server
]]
--- @include "includes/placement-state"
advance(tonumber(ARGV[1]))
local s = loadServer(ARGV[3])
if not s then return 0 end
s.max = tonumber(ARGV[4])
local rate = tonumber(ARGV[5])
if rate ~= s.rate then
  local tat = clock
  if s.rate > 0 and rate > 0 then
    local spent = math.max(0, s.tat - clock) / interval(s.rate)
    tat = clock + math.min(spent, burst(rate)) * interval(rate)
  end
  s.rate = rate
  s.tat = tat
end
reindex(s, true)
return 1

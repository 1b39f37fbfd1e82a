--[[
  Adds (or replaces) a server with the games it already runs (e.g. re-announced on reconnect).

  Input:
    KEYS[1] placement prefix (hash-tagged, e.g. "gf:{placement}")
    ARGV[1] now (ms)
    ARGV[2] policy: "fill" | "spread"
    ARGV[3] serverId
    ARGV[4] factories, JSON array of strings
    ARGV[5] maxGames
    ARGV[6] maxStartsPerSecond (0 = unlimited)
    ARGV[7] games already running
  Output: 1
]]
--- @include "includes/placement-state"
advance(tonumber(ARGV[1]))
local id = ARGV[3]
removeServer(id)
local hosted, seen = {}, {}
for _, f in ipairs(cjson.decode(ARGV[4])) do
  if not seen[f] then
    seen[f] = true
    hosted[#hosted + 1] = f
    redis.call('HINCRBY', P .. ':fsrv', f, 1)
  end
end
local s = { id = id, factories = hosted, max = tonumber(ARGV[5]), rate = tonumber(ARGV[6]),
  run = math.max(0, tonumber(ARGV[7])), fly = 0, tat = clock, free = 0, state = 'full' }
reindex(s, true)
return 1

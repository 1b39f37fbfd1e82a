--[[
  Slot claim or queue push, atomically: a slot at once when nobody of the factory waits and a
  server can start a game; otherwise the request joins the factory's line at `priority`.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (ms)
    ARGV[2] policy
    ARGV[3] factory
    ARGV[4] requestId
    ARGV[5] priority (original arrival sequence; smaller is served first)
  Output: { "server", serverId } or { "position", 1-based position }
]]
--- @include "includes/placement-state"
--- @include "includes/creation-queue"
advance(tonumber(ARGV[1]))
local f = ARGV[3]
if redis.call('ZCARD', P .. ':q:' .. f) == 0 then
  local serverId = claim(f)
  if serverId then return { 'server', serverId } end
end
push(f, ARGV[4], tonumber(ARGV[5]))
return { 'position', positionOf(ARGV[4]) }

--[[
  The server confirmed the game: its in-flight slot becomes a running game. A confirm after a
  release still counts the game.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (unused, "")
    ARGV[2] policy
    ARGV[3] serverId
  Output: 1, or 0 for an unknown server
]]
--- @include "includes/placement-state"
local s = loadServer(ARGV[3])
if not s then return 0 end
if s.fly > 0 then s.fly = s.fly - 1 end
s.run = s.run + 1
reindex(s, false)
return 1

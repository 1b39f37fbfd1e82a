--[[
  A running game ended: its slot is free again.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (unused, "")
    ARGV[2] policy
    ARGV[3] serverId
  Output: 1, or 0 when the server is unknown or runs nothing
]]
--- @include "includes/placement-state"
local s = loadServer(ARGV[3])
if not s or s.run == 0 then return 0 end
s.run = s.run - 1
reindex(s, false)
return 1

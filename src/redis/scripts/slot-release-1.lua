--[[
  An in-flight creation failed, timed out or was taken back: its slot is free again.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (unused, "")
    ARGV[2] policy
    ARGV[3] serverId
  Output: 1, or 0 when the server is unknown or has nothing in flight
]]
--- @include "includes/placement-state"
local s = loadServer(ARGV[3])
if not s or s.fly == 0 then return 0 end
s.fly = s.fly - 1
reindex(s, false)
return 1

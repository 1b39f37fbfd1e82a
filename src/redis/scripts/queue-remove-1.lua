--[[
  Takes a queued request out of line (its tickets left).

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (unused, "")
    ARGV[2] policy
    ARGV[3] requestId
  Output: 1 when it was queued, else 0
]]
--- @include "includes/placement-state"
--- @include "includes/creation-queue"
if removeQueued(ARGV[3]) then return 1 end
return 0

--[[
  1-based place of a request in its factory's line (read only).

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (unused, "")
    ARGV[2] policy
    ARGV[3] requestId
  Output: the position, or nil when not queued
]]
--- @include "includes/placement-state"
--- @include "includes/creation-queue"
return positionOf(ARGV[3])

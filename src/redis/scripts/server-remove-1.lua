--[[
  Removes a server with its slots; its in-flight creations are the caller's to re-queue.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (unused, "")
    ARGV[2] policy
    ARGV[3] serverId
  Output: 1
]]
--- @include "includes/placement-state"
removeServer(ARGV[3])
return 1

--[[
  A FindGame arrived for a factory: one more recent request in its decayed popularity.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (ms)
    ARGV[2] policy
    ARGV[3] factory
    ARGV[4] half-life of the recent-requests count (ms)
  Output: 1
]]
--- @include "includes/placement-state"
--- @include "includes/creation-queue"
local f = ARGV[3]
local value = demandAt(f, tonumber(ARGV[1]), tonumber(ARGV[4]))
redis.call('HSET', P .. ':demand:v', f, fmt(value + 1))
return 1

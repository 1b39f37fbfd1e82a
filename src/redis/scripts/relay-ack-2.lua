--[[
  The matcher owner is done with requests from the inbox: acknowledged and removed, only while
  it holds the newest fencing token. A stale owner's requests stay pending, and the new owner
  claims them (XAUTOCLAIM) once idle, so nothing a paused node read is lost.

  Input:
    KEYS[1] the matcher fence  "gf:{relay}:fence"
    KEYS[2] the inbox stream   "gf:{relay}:inbox"
    ARGV[1] the owner's token
    ARGV[2] the consumer group
    ARGV[3..] entry ids
  Output: the number acknowledged, or -1 when the token is stale
]]
--- @include "includes/owner-fence"
if not ownerHolds(KEYS[1], ARGV[1]) then return -1 end
local ids = {}
for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
local acked = redis.call('XACK', KEYS[2], ARGV[2], unpack(ids))
redis.call('XDEL', KEYS[2], unpack(ids))
return acked

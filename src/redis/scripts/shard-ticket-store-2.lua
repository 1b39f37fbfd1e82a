--[[
  A shard's owner stores or removes a waiting ticket of the shard, fenced by its term: a stale
  owner cannot rewrite the line, and a new owner restores the shard's tickets from this hash.

  Input:
    KEYS[1] the shard's lease    "gf:{s:<shard>}:lease"  value "<token>:<nodeId>"
    KEYS[2] the shard's tickets  "gf:{s:<shard>}:tickets"  ticketId -> record
    ARGV[1] the owner's token
    ARGV[2] ticketId
    ARGV[3] the record, or "" to remove it
  Output: 1 when written, -1 when the token is not the lease's (stale owner)
]]
--- @include "includes/shard-term"
if not termHolds(KEYS[1], ARGV[1]) then return -1 end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
end
return 1

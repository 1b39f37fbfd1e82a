--[[
  The owner stores or removes a waiting ticket, fenced: a stale owner cannot rewrite the line.

  Input:
    KEYS[1] the matcher fence  "gf:{relay}:fence"
    KEYS[2] waiting tickets    "gf:{relay}:tickets"  ticketId -> TicketRecord JSON
    ARGV[1] the owner's token
    ARGV[2] ticketId
    ARGV[3] the record (JSON), or "" to remove it
  Output: 1 when written, -1 when the token is stale
]]
--- @include "includes/owner-fence"
if not ownerHolds(KEYS[1], ARGV[1]) then return -1 end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
end
return 1

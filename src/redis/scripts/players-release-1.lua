--[[
  The ticket ended (assigned and done, cancelled, expired): its players may queue again.
  Only entries still pointing at this ticket are removed.

  Input:
    KEYS[1] live tickets hash "gf:{players}:live"
    ARGV[1] ticketId
    ARGV[2..] playerIds
  Output: how many players were released
]]
local released = 0
for i = 2, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    released = released + 1
  end
end
return released

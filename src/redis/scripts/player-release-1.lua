--[[
  Releases a player's claim, only if this ticket still holds it (a newer ticket keeps its own).

  Input:
    KEYS[1] the player's claim "gf:{pl:<playerId>}:ticket"
    ARGV[1] ticketId
  Output: 1 when released, 0 when another ticket (or none) held it
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0

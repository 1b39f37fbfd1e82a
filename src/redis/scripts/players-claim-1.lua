--[[
  One live ticket per player: claims every player of a party for one ticket, all or none.
  Claiming again for the same ticket is a no-op (a client resuming with its ticket id).

  Input:
    KEYS[1] live tickets hash "gf:{players}:live"  player -> ticketId
    ARGV[1] ticketId
    ARGV[2..] playerIds
  Output: { 1 } when claimed, { 0, playerId, ticketId it is live in } when a player is taken
]]
for i = 2, #ARGV do
  local live = redis.call('HGET', KEYS[1], ARGV[i])
  if live and live ~= ARGV[1] then return { 0, ARGV[i], live } end
end
for i = 2, #ARGV do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
end
return { 1 }

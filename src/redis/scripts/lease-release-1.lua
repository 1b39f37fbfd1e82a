--[[
  Gives a lease up (graceful shutdown) so another node takes the factory without waiting.

  Input:
    KEYS[1] lease key "gf:{<factory>}:lease"
    ARGV[1] nodeId
    ARGV[2] token
  Output: 1 when released, 0 when it was not ours
]]
if redis.call('GET', KEYS[1]) ~= ARGV[2] .. ':' .. ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1

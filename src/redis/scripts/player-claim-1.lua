--[[
  Claims one player for a ticket, cluster-wide (one live ticket per player when factories are
  sharded across nodes). A retry of the same ticket extends its claim.

  Input:
    KEYS[1] the player's claim "gf:{pl:<playerId>}:ticket"
    ARGV[1] ticketId
    ARGV[2] how long the claim lasts (ms): past the ticket's time to live, so a claim left by an owner that died expires
  Output: false when claimed for ARGV[1], else the ticket id holding the player
]]
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false

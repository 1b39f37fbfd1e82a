--[[
  A game server's stream ended on a node: forget its route, unless another node holds it now
  (the server reconnected elsewhere before this node noticed).

  Input:
    KEYS[1] server routes hash  "gf:{routes}:servers"  serverId -> nodeId
    ARGV[1] serverId
    ARGV[2] nodeId that is detaching
  Output: 1 when removed, 0 when the route names another node (or none)
]]
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return 1
end
return 0

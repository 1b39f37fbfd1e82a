--[[
  Extends a lease this node holds with this token; a lease lost meanwhile stays lost.

  Input:
    KEYS[1] lease key "gf:{<factory>}:lease"
    ARGV[1] nodeId
    ARGV[2] token
    ARGV[3] lease time (ms)
  Output: 1 when renewed, 0 when the lease is gone or another holder's
]]
if redis.call('GET', KEYS[1]) ~= ARGV[2] .. ':' .. ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1

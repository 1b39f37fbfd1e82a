--[[
  A shard owner's write holds only while the shard's lease carries the owner's token: a node that
  wakes from a pause finds another token there (or none, if the lease lapsed or Redis restarted
  without persistence) and its write is refused. Stricter than comparing with the fence counter,
  which a restart without persistence would have lost.
]]
local function termHolds(leaseKey, token)
  local held = redis.call('GET', leaseKey)
  if not held then return false end
  return string.sub(held, 1, string.find(held, ':', 1, true) - 1) == token
end

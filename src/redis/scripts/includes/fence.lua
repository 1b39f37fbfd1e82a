--[[
  Fencing (issue 11): a factory owner's write carries the token its lease gave it; a token older
  than the factory's current one means another node took the lease since, so the write is refused.
]]
local function fenceHolds(fenceKey, token)
  local current = tonumber(redis.call('GET', fenceKey)) or 0
  return tonumber(token) >= current
end

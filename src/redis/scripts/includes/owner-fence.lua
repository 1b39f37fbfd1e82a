--[[
  Fencing: an owner's write carries the token its lease gave it. Only the newest token writes; a
  node that woke from a pause past its lease holds an older one, so its write is refused (-1).
]]
local function ownerHolds(fenceKey, token)
  return tonumber(redis.call('GET', fenceKey) or '0') == tonumber(token)
end

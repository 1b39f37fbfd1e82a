--[[
  Queue pop + slot claims: serves the lines with whatever slots are free now, fairly across
  factories (start-time fair queueing weighted by demand), FIFO by original priority within one.

  Input:
    KEYS[1] placement prefix
    ARGV[1] now (ms)
    ARGV[2] policy
    ARGV[3] floor weight
    ARGV[4] half-life of the recent-requests count (ms)
  Output: { retryAt or "", requestId1, factory1, serverId1, requestId2, ... }
]]
--- @include "includes/placement-state"
--- @include "includes/creation-queue"
local now = tonumber(ARGV[1])
advance(now)
local floorWeight = tonumber(ARGV[3])
local halfLife = tonumber(ARGV[4])
local out = { '' }
local passedOver = {}
while true do
  local found = nil
  for _, t in ipairs(turnOrder()) do
    if canClaim(t.f) then
      found = t.f
      break
    end
    passedOver[t.f] = true
  end
  if not found then break end
  local queued = redis.call('ZCARD', P .. ':q:' .. found)
  local weight = math.max(floorWeight, queued + demandAt(found, now, halfLife))
  local requestId = popServed(found, weight)
  out[#out + 1] = requestId
  out[#out + 1] = found
  out[#out + 1] = claim(found)
end
local retryAt = nil
for f, _ in pairs(passedOver) do
  local at = nextStartAt(f)
  if at ~= nil and at > now and (retryAt == nil or at < retryAt) then retryAt = at end
end
if retryAt ~= nil then out[1] = fmt(retryAt) end
return out

--[[
  The next fencing token of a lease: the larger of the last token + 1 and the Redis clock in
  microseconds. A Redis restarted without persistence (or a replica promoted before it had the
  last token) has lost the counter but not the clock: every token issued before was at most a
  handful above the clock when it was issued, so the clock has passed it and the next token is
  still larger. Tokens never go back as long as the Redis hosts' clocks do not step back across
  a restart or failover. Numbers stay below 2^53 (exact in Lua and JavaScript) until year 2255.
]]
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 7: TIME before a write

local function nextFencingToken(fenceKey)
  local now = redis.call('TIME')
  local clock = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local token = math.max((tonumber(redis.call('GET', fenceKey)) or 0) + 1, clock)
  redis.call('SET', fenceKey, string.format('%.0f', token))
  return token
end

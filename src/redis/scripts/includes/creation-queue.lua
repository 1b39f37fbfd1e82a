--[[
  Shared by the placement scripts: the creation queue (src/placement/creation-queue.ts) and its
  start-time fair queueing across factories (apportion-policy.ts, factory-turns.ts). Needs
  placement-state.lua first.

  Keys under prefix P:
    P:q:<f>        zset, one per factory: score = original priority (the arrival sequence),
                   member = "<15-digit push counter>:<requestId>" so equal priorities keep push order
    P:queued       hash requestId -> JSON [factory, member]
    P:pushes       push counter (ties between equal priorities)
    P:waiting      set of factories with queued requests
    P:turn / P:finish   hash factory -> start tag / finish tag; P:vtime the virtual time
    P:demand:v / P:demand:at   hash factory -> decayed recent-request count / its time
]]

local function removeQueued(requestId)
  local entry = redis.call('HGET', P .. ':queued', requestId)
  if not entry then return false end
  local e = cjson.decode(entry)
  redis.call('HDEL', P .. ':queued', requestId)
  redis.call('ZREM', P .. ':q:' .. e[1], e[2])
  if redis.call('ZCARD', P .. ':q:' .. e[1]) == 0 then redis.call('SREM', P .. ':waiting', e[1]) end
  return true
end

--- Queues (or moves) a request at `priority`; a factory that had no work joins at the virtual time.
local function push(f, requestId, priority)
  removeQueued(requestId)
  local member = string.format('%015d', redis.call('INCR', P .. ':pushes')) .. ':' .. requestId
  local key = P .. ':q:' .. f
  if redis.call('ZCARD', key) == 0 then
    local v = tonumber(redis.call('GET', P .. ':vtime')) or 0
    local finish = tonumber(redis.call('HGET', P .. ':finish', f)) or 0
    redis.call('HSET', P .. ':turn', f, fmt(math.max(v, finish)))
    redis.call('SADD', P .. ':waiting', f)
  end
  redis.call('ZADD', key, fmt(priority), member)
  redis.call('HSET', P .. ':queued', requestId, cjson.encode({ f, member }))
end

local function positionOf(requestId)
  local entry = redis.call('HGET', P .. ':queued', requestId)
  if not entry then return nil end
  local e = cjson.decode(entry)
  return redis.call('ZRANK', P .. ':q:' .. e[1], e[2]) + 1
end

--- Decayed count of recent requests (decaying-rate.ts), brought forward to `now`.
local function demandAt(f, now, halfLife)
  local value = tonumber(redis.call('HGET', P .. ':demand:v', f)) or 0
  local at = tonumber(redis.call('HGET', P .. ':demand:at', f)) or -math.huge
  if now > at then
    if value ~= 0 then value = value * 2 ^ (-(now - at) / halfLife) end
    at = now
    redis.call('HSET', P .. ':demand:v', f, fmt(value))
    redis.call('HSET', P .. ':demand:at', f, fmt(at))
  end
  return value
end

--- Waiting factories in turn order: start tag, then oldest head (priority, push order).
local function turnOrder()
  local turns = {}
  for _, f in ipairs(redis.call('SMEMBERS', P .. ':waiting')) do
    local head = redis.call('ZRANGE', P .. ':q:' .. f, 0, 0, 'WITHSCORES')
    turns[#turns + 1] = { f = f, tag = tonumber(redis.call('HGET', P .. ':turn', f)) or 0,
      priority = tonumber(head[2]), member = head[1] }
  end
  table.sort(turns, function(a, b)
    if a.tag ~= b.tag then return a.tag < b.tag end
    if a.priority ~= b.priority then return a.priority < b.priority end
    return a.member < b.member
  end)
  return turns
end

--- Takes the head of factory f's line and charges f one turn at `weight`.
local function popServed(f, weight)
  local key = P .. ':q:' .. f
  local member = redis.call('ZRANGE', key, 0, 0)[1]
  redis.call('ZREM', key, member)
  local requestId = string.sub(member, 17)
  redis.call('HDEL', P .. ':queued', requestId)
  local start = tonumber(redis.call('HGET', P .. ':turn', f)) or 0
  local finish = start + 1 / weight
  redis.call('SET', P .. ':vtime', fmt(start))
  redis.call('HSET', P .. ':finish', f, fmt(finish))
  if redis.call('ZCARD', key) > 0 then
    redis.call('HSET', P .. ':turn', f, fmt(finish))
  else
    redis.call('SREM', P .. ':waiting', f)
  end
  return requestId
end

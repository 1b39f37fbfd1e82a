--[[
  Shared by the placement scripts: the slot ledger (src/placement/slot-ledger.ts) in Redis.
  Every key lives under the prefix KEYS[1] (one hash tag), because a server's slots are shared
  by every factory it hosts: claiming one must see the server and all its factories at once.

  Keys under prefix P:
    P:clock               latest `now` seen (time only moves forward)
    P:srv:<id>            hash: f (JSON factories), max, rate, run, fly, tat, free, state
    P:fslots / P:fsrv     hash factory -> free slots / servers hosting it
    P:totalfree           free slots of all servers
    P:ready:<f>           zset of servers with a free slot and a start token, by policy order
    P:wait:<f>            zset of servers with a free slot, no token until score (readyAt)
  ARGV[1] is `now` (ms, or "" when the call does not read the clock), ARGV[2] the policy.
]]
local P = KEYS[1]
local policy = ARGV[2]

local function fmt(x)
  return string.format('%.17g', x)
end

local clock = tonumber(redis.call('GET', P .. ':clock')) or -math.huge
local function advance(now)
  if now ~= nil and now > clock then
    clock = now
    redis.call('SET', P .. ':clock', fmt(now))
  end
end

-- GCRA start-rate bucket (start-rate-bucket.ts): burst max(1, floor(rate)), one number `tat`.
local function interval(rate)
  if rate == 0 then return 0 end
  return 1000 / rate
end
local function burst(rate)
  return math.max(1, math.floor(rate))
end
local function readyAt(s)
  if s.rate == 0 then return -math.huge end
  return s.tat - (burst(s.rate) - 1) * interval(s.rate)
end

local function loadServer(id)
  local v = redis.call('HMGET', P .. ':srv:' .. id, 'f', 'max', 'rate', 'run', 'fly', 'tat', 'free', 'state')
  if not v[1] then return nil end
  return { id = id, factories = cjson.decode(v[1]), max = tonumber(v[2]), rate = tonumber(v[3]),
    run = tonumber(v[4]), fly = tonumber(v[5]), tat = tonumber(v[6]), free = tonumber(v[7]), state = v[8] }
end

local function saveServer(s)
  redis.call('HSET', P .. ':srv:' .. s.id, 'f', cjson.encode(s.factories), 'max', s.max, 'rate', fmt(s.rate),
    'run', s.run, 'fly', s.fly, 'tat', fmt(s.tat), 'free', s.free, 'state', s.state)
end

--- Recomputes free slots and state, and re-keys the server in each factory it hosts.
local function reindex(s, keyChanged)
  local free = math.max(0, s.max - s.run - s.fly)
  local delta = free - s.free
  local state = 'full'
  if free > 0 then
    if readyAt(s) <= clock then state = 'ready' else state = 'waiting' end
  end
  if delta ~= 0 or state ~= s.state or keyChanged then
    s.free = free
    redis.call('INCRBY', P .. ':totalfree', delta)
    for _, f in ipairs(s.factories) do
      redis.call('HINCRBY', P .. ':fslots', f, delta)
      redis.call('ZREM', P .. ':ready:' .. f, s.id)
      redis.call('ZREM', P .. ':wait:' .. f, s.id)
      if state == 'ready' then
        local score = free
        if policy == 'spread' then score = -free end
        redis.call('ZADD', P .. ':ready:' .. f, score, s.id)
      elseif state == 'waiting' then
        redis.call('ZADD', P .. ':wait:' .. f, fmt(readyAt(s)), s.id)
      end
    end
    s.state = state
  end
  saveServer(s)
end

--- Moves servers of factory f whose start token has come from waiting to ready.
local function admitDue(f)
  if clock == -math.huge then return end
  local due = redis.call('ZRANGEBYSCORE', P .. ':wait:' .. f, '-inf', fmt(clock))
  for _, id in ipairs(due) do
    reindex(loadServer(id), false)
  end
end

local function canClaim(f)
  admitDue(f)
  return redis.call('ZCARD', P .. ':ready:' .. f) > 0
end

--- Claims a slot of factory f on the server the policy prefers; nil when none can start a game.
local function claim(f)
  admitDue(f)
  local top = redis.call('ZRANGE', P .. ':ready:' .. f, 0, 0)[1]
  if not top then return nil end
  local s = loadServer(top)
  s.fly = s.fly + 1
  if s.rate > 0 then s.tat = math.max(s.tat, clock) + interval(s.rate) end
  reindex(s, false)
  return top
end

--- Earliest time a server of f can start a game, or nil when none has a free slot.
local function nextStartAt(f)
  admitDue(f)
  if redis.call('ZCARD', P .. ':ready:' .. f) > 0 then return clock end
  local w = redis.call('ZRANGE', P .. ':wait:' .. f, 0, 0, 'WITHSCORES')
  if w[2] then return tonumber(w[2]) end
  return nil
end

local function removeServer(id)
  local s = loadServer(id)
  if not s then return end
  redis.call('INCRBY', P .. ':totalfree', 0 - s.free)
  for _, f in ipairs(s.factories) do
    redis.call('ZREM', P .. ':ready:' .. f, id)
    redis.call('ZREM', P .. ':wait:' .. f, id)
    redis.call('HINCRBY', P .. ':fslots', f, 0 - s.free)
    if redis.call('HINCRBY', P .. ':fsrv', f, -1) <= 0 then
      redis.call('HDEL', P .. ':fsrv', f)
      redis.call('HDEL', P .. ':fslots', f)
    end
  end
  redis.call('DEL', P .. ':srv:' .. id)
end

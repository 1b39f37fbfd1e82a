--[[
  A node's claims and releases of players for one tick, in one call (one live ticket per player
  when factories are sharded across nodes, and one shard per live ticket id), applied in the order
  they were made. A claim of a party is whole or nothing within this call: its players' keys and
  its ticket id's key are consecutive, and if one is held by another holder none is claimed. A
  claim again by the same holder (a retry) extends it. A release frees a key only while the
  holder still holds it (a newer ticket keeps its own). A free key is taken by one SET NX, not a
  GET and a SET (a ticket's claim was 4 commands, now 2; each command a script makes costs Redis
  about a microsecond of bridging besides its own work); a party refused part way gives back the
  keys it took here.
  On a Redis Cluster the node calls this once per claim bucket (a slot each: src/redis/shards/claim-keys.ts).

  Input (KEYS counted by the caller: `-n`):
    KEYS[1..] each operation's key: a player's claim "gf:{claims:<bucket>}:player:<playerId>", or a ticket id's "gf:{claims:<bucket>}:ticket:<ticketId>"
    ARGV[1] how long a claim lasts (ms): past the ticket's time to live, so a claim left by an owner that died expires
    ARGV[2..] for each key in order: "+<holder>" to claim it, "-<holder>" to release it, the
              holder being "<shard>:<ticketId>"; a party is the run of consecutive claims for one holder
  Output: for each key: "" when claimed (taken now) or released as asked, "=" when claimed and
          already the holder's (a retry: what it gives back on failing is only what it took); for
          a claim refused, the holder of that key, or "!" when another key of the party was held
]]
local out = {}
local i = 1
local n = #KEYS
local ttl = ARGV[1]
while i <= n do
  local op = string.sub(ARGV[i + 1], 1, 1)
  local holder = string.sub(ARGV[i + 1], 2)
  if op == '-' then
    if redis.call('GET', KEYS[i]) == holder then redis.call('DEL', KEYS[i]) end
    out[i] = ''
    i = i + 1
  else
    local last = i
    while last < n and ARGV[last + 2] == ARGV[i + 1] do last = last + 1 end
    local refused = false
    local taken = {}
    for k = i, last do
      if redis.call('SET', KEYS[k], holder, 'NX', 'PX', ttl) then
        taken[#taken + 1] = k
        out[k] = ''
      else
        local held = redis.call('GET', KEYS[k])
        if held == holder then
          redis.call('PEXPIRE', KEYS[k], ttl)
          out[k] = '='
        else
          out[k] = held
          refused = true
          break
        end
      end
    end
    if refused then
      for _, k in ipairs(taken) do redis.call('DEL', KEYS[k]) end
      for k = i, last do
        if out[k] == '' or out[k] == '=' or out[k] == nil then out[k] = '!' end
      end
    end
    i = last + 1
  end
end
return out

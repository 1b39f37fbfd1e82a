--[[
  Takes a lease: a factory's, the relay's matcher lease or a shard's. Every acquisition starts a
  new term with a new fencing token, larger than every token before even after Redis lost its
  data (includes/fencing-token), so any write still in flight from a previous holder is refused by
  fenced scripts. That holds for this node's own earlier term too: a node asks again only once it
  stopped acting on its lease (a commit failed, Redis was unreachable), and its new core must be
  seen as new, with a fence that moved, by every gateway that re-announces servers to it.
  Renewing a term is lease-renew.

  Input:
    KEYS[1] lease key      "gf:{<factory>}:lease", "gf:{s:<shard>}:lease"  value "<token>:<nodeId>"
    KEYS[2] fence counter  "gf:{<factory>}:fence", "gf:{s:<shard>}:fence"
    ARGV[1] nodeId
    ARGV[2] lease time (ms)
  Output: { 1, token } when this node holds the lease now (a new term), { 0, ms left } when
  another does
]]
--- @include "includes/fencing-token"
local held = redis.call('GET', KEYS[1])
if held then
  local sep = string.find(held, ':', 1, true)
  if string.sub(held, sep + 1) ~= ARGV[1] then return { 0, redis.call('PTTL', KEYS[1]) } end
end
local token = nextFencingToken(KEYS[2])
redis.call('SET', KEYS[1], string.format('%.0f', token) .. ':' .. ARGV[1], 'PX', ARGV[2])
return { 1, token }

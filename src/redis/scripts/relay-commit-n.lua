--[[
  One step of the matcher owner, written whole and fenced once: the answers to nodes, the kept
  assignments, the waiting tickets stored or removed and the inbox requests acknowledged, in the
  order the step made them. A stale owner (a node that woke from a pause past its lease) writes
  nothing. One call instead of a MULTI of one script per write.

  Input (KEYS counted by the caller: `-n`):
    KEYS[1] the matcher fence   "gf:{relay}:fence"
    KEYS[2] waiting tickets     "gf:{relay}:tickets"  ticketId -> TicketRecord JSON
    KEYS[3] the inbox stream    "gf:{relay}:inbox"
    KEYS[4..] the step's other keys (nodes' out streams "gf:{relay}:out:<nodeId>", tickets'
              assignments "gf:{relay}:a:<ticketId>"), named by their index in the writes below
    ARGV[1] the owner's token
    ARGV[2] the consumer group
    ARGV[3] how long an unread out stream is kept (ms): a dead node's is dropped
    ARGV[4] how long an assignment is kept (ms)
    ARGV[5..] the writes, each a letter and its fields:
      'S' <out key index> <message>                       an answer to a node
      'A' <out key index> <assignment key index> <message> an assignment told and kept
      'K' <assignment key index> <message>                 an assignment kept (told in process)
      'R' <ticketId> <record JSON, or "" to remove>        a waiting ticket
      'C' <count> <entry id>...                            inbox requests acknowledged and removed
  Output: 1 when written, -1 when the token is stale
]]
--- @include "includes/owner-fence"
if not ownerHolds(KEYS[1], ARGV[1]) then return -1 end
local outKept, assignedKept = ARGV[3], ARGV[4]
local touched = {}
local i = 5
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'S' then
    local out = KEYS[tonumber(ARGV[i + 1])]
    redis.call('XADD', out, 'MAXLEN', '~', 100000, '*', 'm', ARGV[i + 2])
    touched[out] = true
    i = i + 3
  elseif op == 'A' then
    local out = KEYS[tonumber(ARGV[i + 1])]
    redis.call('XADD', out, 'MAXLEN', '~', 100000, '*', 'm', ARGV[i + 3])
    touched[out] = true
    redis.call('SET', KEYS[tonumber(ARGV[i + 2])], ARGV[i + 3], 'PX', assignedKept)
    i = i + 4
  elseif op == 'K' then
    redis.call('SET', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2], 'PX', assignedKept)
    i = i + 3
  elseif op == 'R' then
    if ARGV[i + 2] == '' then
      redis.call('HDEL', KEYS[2], ARGV[i + 1])
    else
      redis.call('HSET', KEYS[2], ARGV[i + 1], ARGV[i + 2])
    end
    i = i + 3
  elseif op == 'C' then
    -- In slices: Lua's unpack gives at most a few thousand values (LUAI_MAXCSTACK).
    local n = tonumber(ARGV[i + 1])
    for from = 1, n, 1000 do
      local ids = {}
      for j = from, math.min(n, from + 999) do ids[#ids + 1] = ARGV[i + 1 + j] end
      redis.call('XACK', KEYS[3], ARGV[2], unpack(ids))
      redis.call('XDEL', KEYS[3], unpack(ids))
    end
    i = i + 2 + n
  else
    return redis.error_reply('relay-commit: unknown write ' .. tostring(op))
  end
end
for out in pairs(touched) do redis.call('PEXPIRE', out, outKept) end
return 1

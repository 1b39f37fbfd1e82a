--[[
  A node's requests of one tick to owners' inboxes (a shard's each), in one call and in the order
  they were made: finds (forwarded unless the ticket's assignment is kept: then that is the
  answer, as relay-find-2 does), cancels, abandons, and game servers' hellos, events and byes.

  Input (KEYS counted by the caller: `-n`):
    KEYS[1..] per request in order: a find's two keys, its assignment "gf:{s:<n>}:a:<ticketId>"
              and the inbox "gf:{s:<n>}:inbox"; any other request's one, the inbox
    ARGV[1..] per request in order, two each: "F" (a find) or "M" (another request), then the message (JSON)
  Output: per request: the kept assignment message (JSON) of a find not forwarded, else ""
]]
local out = {}
local k = 1
for a = 1, #ARGV, 2 do
  if ARGV[a] == 'F' then
    local kept = redis.call('GET', KEYS[k])
    if kept then
      out[#out + 1] = kept
    else
      redis.call('XADD', KEYS[k + 1], '*', 'm', ARGV[a + 1])
      out[#out + 1] = ''
    end
    k = k + 2
  else
    redis.call('XADD', KEYS[k], '*', 'm', ARGV[a + 1])
    out[#out + 1] = ''
    k = k + 1
  end
end
return out

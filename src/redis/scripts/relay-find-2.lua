--[[
  A node forwards a FindGame to the matcher owner, unless the ticket is assigned already (a
  client resuming after its node or the owner died): then the kept assignment is the answer.
  One round trip either way.

  Input:
    KEYS[1] the ticket's assignment "gf:{relay}:a:<ticketId>"
    KEYS[2] the owner's inbox       "gf:{relay}:inbox"
    ARGV[1] the find message (JSON)
  Output: the kept assignment message (JSON), or false when forwarded
]]
local kept = redis.call('GET', KEYS[1])
if kept then return kept end
redis.call('XADD', KEYS[2], '*', 'm', ARGV[1])
return false

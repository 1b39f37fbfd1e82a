--[[
  The owner tells a node a ticket is assigned and keeps the assignment for a client that
  resumes on another node, fenced like relay-send.

  Input:
    KEYS[1] the matcher fence       "gf:{relay}:fence"
    KEYS[2] the node's out stream   "gf:{relay}:out:<nodeId>"
    KEYS[3] the ticket's assignment "gf:{relay}:a:<ticketId>"
    ARGV[1] the owner's token
    ARGV[2] the message (JSON)
    ARGV[3] how long an unread out stream is kept (ms)
    ARGV[4] how long the assignment is kept (ms)
  Output: 1 when sent, -1 when the token is stale
]]
--- @include "includes/owner-fence"
if not ownerHolds(KEYS[1], ARGV[1]) then return -1 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 100000, '*', 'm', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[4])
return 1

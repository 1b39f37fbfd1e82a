--[[
  The matcher owner answers a node (a ticket update, a server order), only while it holds the
  newest fencing token: a node that woke from a pause past its lease writes nothing.

  Input:
    KEYS[1] the matcher fence     "gf:{relay}:fence"
    KEYS[2] the node's out stream "gf:{relay}:out:<nodeId>"
    ARGV[1] the owner's token
    ARGV[2] the message (JSON)
    ARGV[3] how long an unread out stream is kept (ms): a dead node's is dropped
  Output: 1 when sent, -1 when the token is stale
]]
--- @include "includes/owner-fence"
if not ownerHolds(KEYS[1], ARGV[1]) then return -1 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 100000, '*', 'm', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1

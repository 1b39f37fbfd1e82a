--[[
  The owner keeps a ticket's assignment for a client that resumes on another node, fenced like
  relay-assign; for a call of the owner's own node, answered in process (no out stream entry).

  Input:
    KEYS[1] the matcher fence       "gf:{relay}:fence"
    KEYS[2] the ticket's assignment "gf:{relay}:a:<ticketId>"
    ARGV[1] the owner's token
    ARGV[2] the assignment message (JSON), as relay-assign keeps it
    ARGV[3] how long the assignment is kept (ms)
  Output: 1 when kept, -1 when the token is stale
]]
--- @include "includes/owner-fence"
if not ownerHolds(KEYS[1], ARGV[1]) then return -1 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1

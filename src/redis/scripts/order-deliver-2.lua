--[[
  Puts an order (CreateGame, ReserveSeats) in the outbox of the node holding the server's
  stream, once per order id: delivering the same order again returns the first entry.

  Input:
    KEYS[1] the node's outbox stream  "gf:{node:<nodeId>}:orders"
    KEYS[2] order ids seen            "gf:{node:<nodeId>}:order-ids"  orderId -> entry id
    ARGV[1] orderId
    ARGV[2] serverId
    ARGV[3] payload
    ARGV[4] how long order ids are remembered (ms)
  Output: { entry id, 1 if new else 0 }
]]
local seen = redis.call('HGET', KEYS[2], ARGV[1])
if seen then return { seen, 0 } end
local id = redis.call('XADD', KEYS[1], '*', 'order', ARGV[1], 'server', ARGV[2], 'payload', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], id)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return { id, 1 }

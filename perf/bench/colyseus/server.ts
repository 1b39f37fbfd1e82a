/**
 * A Colyseus 0.16 server in its own process, as a user would run one: `Server` with its default
 * in-process driver and presence (LocalDriver, LocalPresence) and the WebSocket transport, one
 * room type of 4 seats. A room ends as soon as its fourth player is seated, freeing its place, as the
 * load generator's fake game servers end a full game. Prints `listening <port>` when ready.
 *   npx tsx perf/bench/colyseus/server.ts [port=0]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Room, Server } from '@colyseus/core';
import { WebSocketTransport } from '@colyseus/ws-transport';

const MAX_PLAYERS = 4;

class CoopRoom extends Room {
  override maxClients = MAX_PLAYERS;
  private seated = 0;

  override onCreate(): void {
    // A client says so once its joinOrCreate resolved: ending the room in onJoin would close the
    // fourth player's socket before its join completes.
    this.onMessage('seated', () => {
      this.seated += 1;
      // Full: the game "starts and ends" at once, as in the load generator's fake servers.
      if (this.seated >= MAX_PLAYERS) void this.disconnect();
    });
  }
}

const httpServer = createServer();
const gameServer = new Server({ transport: new WebSocketTransport({ server: httpServer }), greet: false });
gameServer.define('coop', CoopRoom).filterBy(['difficulty', 'hardcore', 'version']);
await gameServer.listen(Number(process.argv[2] ?? 0), '127.0.0.1');
console.log(`listening ${(httpServer.address() as AddressInfo).port}`);
process.on('SIGTERM', () => {
  void gameServer.gracefullyShutdown(false).finally(() => process.exit(0));
});

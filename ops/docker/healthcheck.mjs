// The image's HEALTHCHECK: asks the coordinator's standard gRPC health service (grpc.health.v1,
// which needs no credentials) whether it is SERVING; exit 0 if so, 1 otherwise (draining,
// a cluster node without Redis, not listening yet).
//   GAMEFACTORY_HEALTH_ADDRESS  host:port to ask (default 127.0.0.1:50051)
//   GAMEFACTORY_HEALTH_CA       with security.tls: the CA that signed the server's certificate
//   GAMEFACTORY_HEALTH_SERVER_NAME  ...and the name on it, when not the address's host
import { readFileSync } from 'node:fs';
import grpc from '@grpc/grpc-js';
import { service } from 'grpc-health-check';

const address = process.env.GAMEFACTORY_HEALTH_ADDRESS || '127.0.0.1:50051';
const ca = process.env.GAMEFACTORY_HEALTH_CA;
const serverName = process.env.GAMEFACTORY_HEALTH_SERVER_NAME;
const Health = grpc.makeGenericClientConstructor(service, 'Health');
const client = new Health(
  address,
  ca ? grpc.credentials.createSsl(readFileSync(ca)) : grpc.credentials.createInsecure(),
  serverName ? { 'grpc.ssl_target_name_override': serverName } : {},
);
client.check({ service: '' }, { deadline: Date.now() + 2000 }, (error, response) => {
  client.close();
  if (error) {
    console.error(`health: ${address}: ${error.details || error.message}`);
    process.exit(1);
  }
  if (response.status !== 'SERVING') console.error(`health: ${address}: ${response.status}`);
  process.exit(response.status === 'SERVING' ? 0 : 1);
});

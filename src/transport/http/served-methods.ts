import { createFileRegistry, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { readFileSync } from 'node:fs';

/**
 * The services served over HTTP (Connect, gRPC-Web, JSON) beside gRPC: every method of these
 * whose client sends one request (unary and server streaming; HTTP/1.1 cannot carry a client
 * stream, so FindGames stays on gRPC). A method added to one of them in the .proto is served here
 * with no line to add; another service is one line.
 */
export const HTTP_SERVICES = ['gamefactory.v1.Matchmaker', 'gamefactory.v1.Ratings'] as const;

/** A method served over HTTP, read from the contract buf compiled (the descriptor set beside the generated code). */
export interface ServedMethod {
  /** "/gamefactory.v1.Matchmaker/FindGame": the gRPC path, and the HTTP path. */
  readonly path: string;
  /** The method's name, as the gRPC server names it in its messages ("FindGame"). */
  readonly name: string;
  readonly serverStreaming: boolean;
  /** Request JSON (proto3 JSON mapping) to the binary message the gRPC server reads. */
  requestFromJson(json: JsonValue): Uint8Array;
  /** A binary reply from the gRPC server as JSON (proto3 JSON mapping). */
  replyToJson(bytes: Uint8Array): JsonValue;
}

/**
 * The served methods by path. Built from the descriptor set scripts/build.mjs compiles from
 * proto/ with the TypeScript, so the routes and the JSON mapping come from the same contract as
 * the gRPC services and cannot go stale.
 */
export function servedMethods(descriptorSet: Uint8Array = readFileSync(new URL('../../generated/gamefactory.binpb', import.meta.url))): ReadonlyMap<string, ServedMethod> {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
  const methods = new Map<string, ServedMethod>();
  for (const serviceName of HTTP_SERVICES) {
    const service = registry.getService(serviceName);
    if (!service) throw new Error(`the contract has no service ${serviceName}`);
    for (const method of service.methods) {
      if (method.methodKind !== 'unary' && method.methodKind !== 'server_streaming') continue;
      const path = `/${service.typeName}/${method.name}`;
      methods.set(path, {
        path,
        name: method.name,
        serverStreaming: method.methodKind === 'server_streaming',
        requestFromJson: (json) => toBinary(method.input, fromJson(method.input, json)),
        replyToJson: (bytes) => toJson(method.output as DescMessage, fromBinary(method.output, bytes)),
      });
    }
  }
  return methods;
}

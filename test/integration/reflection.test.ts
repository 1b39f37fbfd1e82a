import { create, createFileRegistry, fromBinary, fromJson, toBinary, toJson, type FileRegistry, type JsonValue } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Client, credentials, loadPackageDefinition, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIABLO_YAML, TestCoordinator } from './harness.js';

/**
 * A client that knows the coordinator only through gRPC reflection, as grpcurl or a Python client
 * would: it lists the services, fetches the file of each and every file those import, builds its
 * types from them (with @bufbuild/protobuf's registry, which resolves nothing it is not given),
 * and calls FindGame with a request written as JSON.
 */
let coordinator: TestCoordinator;
let reflected: { services: string[]; files: Map<string, FileDescriptorProto>; registry: FileRegistry };

beforeAll(async () => {
  coordinator = await TestCoordinator.start(DIABLO_YAML);
  reflected = await reflect(coordinator.address);
});
afterAll(() => coordinator.stop());

describe('reflection', () => {
  it('serves each .proto of the contract under its own name, with its imports', () => {
    const ours = readdirSync(join(import.meta.dirname, '../../proto/gamefactory/v1')).map((f) => `gamefactory/v1/${f}`);
    expect([...reflected.files.keys()].filter((name) => name.startsWith('gamefactory/')).sort()).toEqual(ours.sort());
    expect(reflected.files.get('gamefactory/v1/matchmaker.proto')!.dependency).toContain('gamefactory/v1/attributes.proto');
    expect(reflected.services).toEqual(expect.arrayContaining(['gamefactory.v1.Matchmaker', 'gamefactory.v1.GameServerLink', 'gamefactory.v1.Ratings', 'gamefactory.v1.Admin', 'gamefactory.v1.MatchFunction', 'grpc.health.v1.Health']));
  });

  it('describes every message as the .proto files on disk do (the served descriptors are never stale)', () => {
    const sources = loadSync(
      readdirSync(join(import.meta.dirname, '../../proto/gamefactory/v1')).map((f) => `gamefactory/v1/${f}`),
      { includeDirs: [join(import.meta.dirname, '../../proto')], keepCase: true },
    );
    let compared = 0;
    for (const [name, definition] of Object.entries(sources)) {
      if (!('format' in definition) || definition.format !== 'Protocol Buffer 3 DescriptorProto') continue;
      const source = definition.type as { field: { name: string; number: number }[] };
      const served = reflected.registry.getMessage(name);
      expect(served, name).toBeDefined();
      expect(served!.fields.map((f) => [f.name, f.number]).sort(), name).toEqual(source.field.map((f) => [f.name, f.number]).sort());
      compared++;
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('lets a client that has only the reflected descriptors find a game', async () => {
    await coordinator.server({ serverId: 'reflected-server' }, { autoJoin: true });
    const request = reflected.registry.getMessage('gamefactory.v1.FindGameRequest')!;
    const update = reflected.registry.getMessage('gamefactory.v1.FindGameUpdate')!;
    const method = reflected.registry.getService('gamefactory.v1.Matchmaker')!.methods.find((m) => m.name === 'FindGame')!;
    const json: JsonValue = {
      ticketId: 'reflected-1',
      template: 'diablo',
      party: [{ playerId: 'reflected-player' }],
      partitionAttributes: { difficulty: { stringValue: 'hard' }, hardcore: { boolValue: false }, version: { stringValue: 'v201' } },
    };
    const client = new Client(coordinator.address, credentials.createInsecure());
    try {
      const updates = await new Promise<JsonValue[]>((resolve, reject) => {
        const seen: JsonValue[] = [];
        const call = client.makeServerStreamRequest(
          `/${method.parent.typeName}/${method.name}`,
          (value: Uint8Array) => Buffer.from(value),
          (bytes: Buffer) => toJson(update, fromBinary(update, bytes)),
          toBinary(request, fromJson(request, json)),
        );
        call.on('data', (value: JsonValue) => {
          seen.push(value);
          if (JSON.stringify(value).includes('assignment')) {
            call.cancel();
            resolve(seen);
          }
        });
        call.on('error', (error: Error & { code?: number }) => (error.code === 1 ? undefined : reject(error)));
      });
      const assignment = (updates.at(-1) as { assignment: { gameId: string; serverId: string } }).assignment;
      expect(assignment.serverId).toBe('reflected-server');
      expect(assignment.gameId).not.toBe('');
    } finally {
      client.close();
    }
  });
});

async function reflect(address: string): Promise<typeof reflected> {
  const entry = new URL(import.meta.resolve('@grpc/reflection'));
  const definition = loadPackageDefinition(loadSync('reflection/v1/reflection.proto', { includeDirs: [new URL('../proto/grpc/', entry).pathname] })) as GrpcObject;
  const Reflection = (((definition.grpc as GrpcObject).reflection as GrpcObject).v1 as GrpcObject).ServerReflection as ServiceClientConstructor;
  const client = new Reflection(address, credentials.createInsecure());
  const call = client.serverReflectionInfo!();
  const answers: ((response: ReflectionResponse) => void)[] = [];
  call.on('data', (response: ReflectionResponse) => answers.shift()!(response));
  const ask = (request: object) => new Promise<ReflectionResponse>((resolve) => (answers.push(resolve), call.write(request)));
  try {
    const services = (await ask({ listServices: '' })).listServicesResponse!.service.map((s) => s.name);
    const files = new Map<string, FileDescriptorProto>();
    const take = (response: ReflectionResponse, asked: string) => {
      if (!response.fileDescriptorResponse) throw new Error(`reflection: ${asked}: ${JSON.stringify(response.errorResponse)}`);
      for (const bytes of response.fileDescriptorResponse.fileDescriptorProto) {
        const file = fromBinary(FileDescriptorProtoSchema, bytes);
        if (!files.has(file.name)) files.set(file.name, file);
      }
    };
    for (const service of services) take(await ask({ fileContainingSymbol: service }), service);
    for (let missing = [...files.values()].flatMap((f) => f.dependency).filter((d) => !files.has(d)); missing.length > 0; missing = [...files.values()].flatMap((f) => f.dependency).filter((d) => !files.has(d))) {
      for (const name of new Set(missing)) take(await ask({ fileByFilename: name }), name);
    }
    // Imports first, as the registry reads them.
    const ordered: FileDescriptorProto[] = [];
    const visit = (file: FileDescriptorProto) => {
      if (ordered.includes(file)) return;
      for (const dependency of file.dependency) visit(files.get(dependency)!);
      ordered.push(file);
    };
    files.forEach(visit);
    return { services, files, registry: createFileRegistry(create(FileDescriptorSetSchema, { file: ordered })) };
  } finally {
    call.end();
    client.close();
  }
}

interface ReflectionResponse {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

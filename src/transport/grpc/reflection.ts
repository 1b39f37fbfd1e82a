import { ReflectionService } from '@grpc/reflection';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import type { PackageDefinition } from '@grpc/proto-loader';
import { readFileSync } from 'node:fs';

/** The descriptor sets scripts/build.mjs compiles with buf beside the generated TypeScript. */
const DESCRIPTOR_SETS = ['gamefactory.binpb', 'grpc-health.binpb'];

/**
 * gRPC server reflection over the contract as buf compiled it: every .proto under its own name
 * (gamefactory/v1/matchmaker.proto...), with its imports and fully qualified type names, as protoc
 * writes them. Given proto-loader's reading of the .proto files instead, @grpc/reflection served
 * one merged `gamefactory_v1.proto` whose fields named their types relative to the package
 * ("AttributeValue"), which a strict reflection client cannot resolve (@bufbuild/protobuf's
 * registry refuses it: "type_name AttributeValue not found").
 */
export function contractReflection(): ReflectionService {
  const files = DESCRIPTOR_SETS.flatMap((name) => filesOf(readFileSync(new URL(`../../generated/${name}`, import.meta.url))));
  // @grpc/reflection reads only the FileDescriptorProtos of a package definition's entries.
  const definition = { contract: { format: 'Protocol Buffer 3 FileDescriptorProto', type: {}, fileDescriptorProtos: files } } as unknown as PackageDefinition;
  return new ReflectionService(definition);
}

/** A FileDescriptorSet's files, each as its own encoded FileDescriptorProto (field 1, repeated). */
function filesOf(set: Uint8Array): Buffer[] {
  const reader = new BinaryReader(set);
  const files: Buffer[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) files.push(Buffer.from(reader.bytes()));
    else reader.skip(wireType);
  }
  return files;
}

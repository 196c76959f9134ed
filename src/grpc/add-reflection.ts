import { readFileSync } from 'node:fs';
import type { Server } from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

/** The descriptors of every file under proto/ and the well-known types they import (scripts/build-proto-image.mjs). */
const IMAGE_URL = new URL('../gen/scheduling.binpb', import.meta.url);

/** The name the health service (grpc-health-check, described by proto/grpc/health/v1/health.proto) is served under. */
export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

let imageFiles: Buffer[] | undefined;

/** Each FileDescriptorProto of the image, encoded, read once per process. */
function filesOfImage(): Buffer[] {
  imageFiles ??= fromBinary(FileDescriptorSetSchema, readFileSync(IMAGE_URL)).file.map((f) =>
    Buffer.from(toBinary(FileDescriptorProtoSchema, f)),
  );
  return imageFiles;
}

/** Reflection services by the services they list: indexing the image takes about 0.1 s, once per process and list. */
const reflections = new Map<string, ReflectionService>();

/**
 * Adds server reflection (`grpc.reflection.v1` and `v1alpha`) to a server, answering with the descriptors buf built
 * from proto/ (imports included, so tools such as `buf curl` and grpcurl resolve every type), and listing `services`:
 * the fully qualified names of the services the server serves.
 */
export function addReflection(server: Pick<Server, 'addService'>, services: string[]): void {
  const key = [...services].sort().join(' ');
  let reflection = reflections.get(key);
  if (!reflection) {
    // @grpc/reflection reads only the `fileDescriptorProtos` of a package definition's entries. Given proto-loader's
    // own definition, those are protobufjs's re-derivation of the files, one per package and without their imports,
    // which clients cannot link; here each entry carries one file exactly as buf built it.
    const definition = Object.fromEntries(
      filesOfImage().map((file, i) => [`file${i}`, { fileDescriptorProtos: [file] }]),
    ) as unknown as PackageDefinition;
    reflection = new ReflectionService(definition, { services });
    reflections.set(key, reflection);
  }
  reflection.addToServer(server);
}

import { readFileSync } from 'node:fs';
import type { Server, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
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

/** Reflection services by the services they list: indexing the image takes 0.3-0.6 s of CPU, once per process and list. */
const reflections = new Map<string, ReflectionService>();

/** The reflection service listing `services`, indexed on first use. */
function reflectionOf(services: string[]): ReflectionService {
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
  return reflection;
}

/** The services and handlers a reflection service adds to a server, by service path. */
function handlersOf(reflection: ReflectionService): Map<string, UntypedServiceImplementation> {
  const handlers = new Map<string, UntypedServiceImplementation>();
  reflection.addToServer({ addService: (service, impl) => handlers.set(pathOf(service), impl) });
  return handlers;
}

/** A service definition's name, from its methods' paths (`/grpc.reflection.v1.ServerReflection/...`). */
const pathOf = (service: ServiceDefinition) => Object.values(service)[0]!.path.split('/')[1]!;

/**
 * Adds server reflection (`grpc.reflection.v1` and `v1alpha`) to a server, answering with the descriptors buf built
 * from proto/ (imports included, so tools such as `buf curl` and grpcurl resolve every type), and listing `services`:
 * the fully qualified names of the services the server serves. The image is indexed on the first reflection call, not
 * at start: most processes (every test's) never answer one.
 */
export function addReflection(server: Pick<Server, 'addService'>, services: string[]): void {
  // A reflection service over no files registers the same two services cheaply; their calls go to the real one.
  let real: Map<string, UntypedServiceImplementation> | undefined;
  new ReflectionService({} as PackageDefinition, { services }).addToServer({
    addService: (service, impl) => {
      const name = pathOf(service);
      const lazy = Object.fromEntries(
        Object.keys(impl).map((method) => [
          method,
          (...args: unknown[]) => {
            real ??= handlersOf(reflectionOf(services));
            return (real.get(name)![method] as (...a: unknown[]) => unknown)(...args);
          },
        ]),
      );
      server.addService(service, lazy as UntypedServiceImplementation);
    },
  });
}

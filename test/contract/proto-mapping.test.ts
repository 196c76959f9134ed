import test from 'ava';
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ScalarType, createFileRegistry, fromBinary, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import type { RouteSpec } from '../../src/contract/route.js';
import { SCHEMA_NAMES } from '../../src/contract/schema-names.js';
import {
  enumTypeName,
  enumValueName,
  hasPresence,
  protoFieldNameIn,
  protoShapeOf,
  typedSchemaOf,
  unwrapSchema,
  type ProtoShape,
  type ShapeSide,
} from '../../src/contract/proto-shape.js';
import { requestGroups, resultFieldName } from '../../src/contract/typed-message.js';

/**
 * The proto files are written by hand; the gateway maps REST onto them by rules (src/contract/proto-shape.ts,
 * typed-message.ts, request-message-of.ts). This checks those rules against the descriptors built from proto/
 * (src/gen/scheduling.binpb, `npm run generate`): every route's path, query and body members land on a field of its
 * RPC's request message, and every member of its answer on a field of the response message, of a type the mapping
 * reads and writes, with presence where the mapping tells "left out" from a default. A hand edit of the proto that
 * breaks the gateway's mapping (a renamed field, a changed type, an enum value gone) fails here.
 */

const registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, readFileSync(new URL('../../src/gen/scheduling.binpb', import.meta.url))),
);

/** The request and response messages of a route's RPC. */
function methodOf(route: RouteSpec): { input: DescMessage; output: DescMessage } | undefined {
  const service = registry.getService(`scheduling.v1.${route.service}`);
  return service?.methods.find((m) => m.name === route.rpc);
}

/** What the mapping needs of one field's type; where it differs, a problem (`path: why`). */
function typeProblems(shape: ProtoShape, field: DescField, restName: string, side: ShapeSide, at: string): string[] {
  if (shape.kind === 'repeated')
    return field.fieldKind === 'list'
      ? itemProblems(shape.item, field, restName, side, at)
      : [`${at}: the mapping needs a repeated field`];
  if (shape.kind === 'map') {
    if (field.fieldKind !== 'map' || field.mapKey !== ScalarType.STRING)
      return [`${at}: the mapping needs a map<string, ...>`];
    return itemProblems(shape.value, field, restName, side, at);
  }
  if (field.fieldKind === 'list' || field.fieldKind === 'map') return [`${at}: the mapping needs a singular field`];
  return itemProblems(shape, field, restName, side, at);
}

/** Whether a singular field, or the items or values of a list or map, have the type a shape maps to. */
function itemProblems(shape: ProtoShape, field: DescField, restName: string, side: ShapeSide, at: string): string[] {
  const scalar =
    field.fieldKind === 'scalar' || (field.fieldKind === 'list' && field.listKind === 'scalar')
      ? field.scalar
      : field.fieldKind === 'map' && field.mapKind === 'scalar'
        ? field.scalar
        : undefined;
  const enumDesc =
    field.fieldKind === 'enum' ||
    (field.fieldKind === 'list' && field.listKind === 'enum') ||
    (field.fieldKind === 'map' && field.mapKind === 'enum')
      ? field.enum
      : undefined;
  const message =
    field.fieldKind === 'message' ||
    (field.fieldKind === 'list' && field.listKind === 'message') ||
    (field.fieldKind === 'map' && field.mapKind === 'message')
      ? field.message
      : undefined;
  const wants = (ok: boolean, what: string) => (ok ? [] : [`${at}: the mapping needs ${what}`]);
  switch (shape.kind) {
    case 'string':
      return wants(scalar === ScalarType.STRING, 'a string');
    case 'bool':
      return wants(scalar === ScalarType.BOOL, 'a bool');
    case 'int64':
      return wants(scalar === ScalarType.INT64, 'an int64');
    case 'double':
      return wants(scalar === ScalarType.DOUBLE, 'a double');
    case 'timestamp':
      return wants(message?.typeName === 'google.protobuf.Timestamp', 'a google.protobuf.Timestamp');
    case 'value':
      return wants(message?.typeName === 'google.protobuf.Value', 'a google.protobuf.Value');
    case 'struct':
      return wants(message?.typeName === 'google.protobuf.Struct', 'a google.protobuf.Struct');
    case 'enum': {
      if (!enumDesc) return [`${at}: the mapping needs an enum`];
      // The mapping names an enum's values after its named type, else after the field's REST name (typed-message.ts).
      const name = shape.name ?? enumTypeName(restName);
      const problems = wants(enumDesc.name === name, `the enum ${name} (it is ${enumDesc.name})`);
      for (const v of shape.values)
        if (!enumDesc.values.some((d) => d.name === enumValueName(name, v)))
          problems.push(`${at}: ${enumDesc.name} has no ${enumValueName(name, v)} (REST \`${v}\`)`);
      return problems;
    }
    case 'message':
      return message ? objectProblems(shape.schema, message, side, at) : [`${at}: the mapping needs a message`];
    case 'oneof':
      return message ? oneofProblems(shape, message, side, at) : [`${at}: the mapping needs a message of one oneof`];
    case 'absent':
    case 'repeated':
    case 'map':
      return [`${at}: no field expected`];
  }
}

/** The cases of a oneof shape against a message: each case is a field of its `oneof kind`. */
function oneofProblems(
  shape: Extract<ProtoShape, { kind: 'oneof' }>,
  message: DescMessage,
  side: ShapeSide,
  at: string,
) {
  const problems: string[] = [];
  shape.oneof.cases.forEach((c, i) => {
    const field = message.fields.find((f) => f.name === c.name);
    if (!field) problems.push(`${at}: ${message.typeName} has no field ${c.name}`);
    else if (field.oneof?.name !== 'kind') problems.push(`${at}.${c.name}: not in the oneof \`kind\``);
    else problems.push(...typeProblems(shape.cases[i]!, field, c.name, side, `${at}.${c.name}`));
  });
  return problems;
}

const seen = { input: new WeakMap<z.ZodObject, Set<string>>(), output: new WeakMap<z.ZodObject, Set<string>>() };

/** Every member of an object schema against a message: its field exists, has the type and the presence the mapping needs. */
function objectProblems(schema: z.ZodObject, message: DescMessage, side: ShapeSide, at: string): string[] {
  // A schema met again against the same message (a named resource used by many answers) is checked once.
  let messages = seen[side].get(schema);
  if (messages === undefined) seen[side].set(schema, (messages = new Set()));
  if (messages.has(message.typeName)) return [];
  messages.add(message.typeName);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(schema.shape)) {
    const member = value as z.ZodType;
    const shape = protoShapeOf(member, side);
    if (shape.kind === 'absent') continue;
    const name = protoFieldNameIn(schema, key);
    const field = message.fields.find((f) => f.name === name);
    if (!field) {
      problems.push(`${at}: ${message.typeName} has no field ${name} (REST \`${key}\`)`);
      continue;
    }
    problems.push(...typeProblems(shape, field, key, side, `${at}.${name}`));
    const present = hasPresence(shape, unwrapSchema(typedSchemaOf(member), side), side);
    if (present && !field.proto.proto3Optional) problems.push(`${at}.${name}: the mapping needs it \`optional\``);
  }
  return problems;
}

/** Every problem of one route's mapping onto its RPC. */
function routeProblems(route: RouteSpec): string[] {
  const method = methodOf(route);
  const at = `${route.service}/${route.rpc}`;
  if (!method) return [`${at}: no such RPC`];
  const problems: string[] = [];
  // A REST form of another route's RPC (a v1 route) maps onto that RPC's messages with its own mapping (its parity
  // tests: v1-resolution-parity, bookings-v1-reads-parity): its REST members are not the message's.
  if (!route.restForm?.request)
    for (const group of requestGroups(route))
      problems.push(...objectProblems(group.schema, method.input, 'input', `${at} ${group.kind}`));
  if (route.method === 'PATCH') {
    const mask = method.input.fields.find((f) => f.name === 'update_mask');
    if (mask?.message?.typeName !== 'google.protobuf.FieldMask')
      problems.push(`${at}: no google.protobuf.FieldMask update_mask`);
  }
  if (route.htmlAnswer && method.output.fields.find((f) => f.name === 'html_page')?.scalar !== ScalarType.STRING)
    problems.push(`${at}: no string html_page`);
  if (!route.response || route.restForm?.response) return problems;
  const shape = protoShapeOf(route.response, 'output');
  const named = shape.kind === 'message' ? SCHEMA_NAMES.get(shape.schema) : undefined;
  if (shape.kind === 'message' && !named) {
    problems.push(...objectProblems(shape.schema, method.output, 'output', `${at} response`));
  } else if (shape.kind === 'oneof') {
    problems.push(...oneofProblems(shape, method.output, 'output', `${at} response`));
  } else {
    const name = named ? resultFieldName(named) : 'result_value';
    const field = method.output.fields.find((f) => f.name === name);
    if (!field) problems.push(`${at} response: ${method.output.typeName} has no field ${name}`);
    else problems.push(...typeProblems(shape, field, name, 'output', `${at} response.${name}`));
  }
  return problems;
}

test('every route maps onto the fields of its RPC in the proto', (t) => {
  t.true(ALL_ROUTES.length > 50, 'the route table was read');
  const problems = ALL_ROUTES.flatMap(routeProblems);
  t.deepEqual(problems, [], problems.join('\n'));
});

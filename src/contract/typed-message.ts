import type { z } from 'zod';
import type { RouteSpec } from './route.js';
import type { RestInput } from './rest-form.js';
import { SCHEMA_NAMES } from './schema-names.js';
import {
  enumPrefix,
  enumTypeName,
  enumValueName,
  hasPresence,
  protoFieldName,
  protoFieldNameIn,
  protoShapeOf,
  tsPropertyName,
  typedSchemaOf,
  unwrapSchema,
  type ProtoShape,
  type ShapeSide,
} from './proto-shape.js';

const properties = new WeakMap<z.ZodObject, Map<string, string>>();
/**
 * The ts-proto property of a REST field of an object schema (`serviceId` -> `serviceId`, `dead_lettered` ->
 * `deadLettered`, a list's `limit` -> `pageSize`), the field the proto names by `protoFieldNameIn`.
 */
function propertyOf(schema: z.ZodObject, restName: string): string {
  let names = properties.get(schema);
  if (names === undefined) properties.set(schema, (names = new Map()));
  let p = names.get(restName);
  if (p === undefined) names.set(restName, (p = tsPropertyName(protoFieldNameIn(schema, restName))));
  return p;
}

/** The object schemas a route's typed request message is made of, in field order: path, query, then body fields. */
export function requestGroups(route: RouteSpec): { kind: 'params' | 'query' | 'body'; schema: z.ZodObject }[] {
  const groups: { kind: 'params' | 'query' | 'body'; schema: z.ZodObject }[] = [];
  for (const kind of ['params', 'query', 'body'] as const) {
    const schema = route[kind];
    if (!schema) continue;
    const shape = protoShapeOf(schema, 'input');
    if (shape.kind !== 'message') throw new Error(`${route.rpc}: the ${kind} schema is not an object`);
    groups.push({ kind, schema: shape.schema });
  }
  return groups;
}

export type { RestInput } from './rest-form.js';

/** What the translation needs of one field of an object schema on one side, worked out once per schema. */
interface FieldPlan {
  key: string;
  property: string;
  shape: ProtoShape;
  optional: boolean;
  nullable: boolean;
  /** The field has presence in its message (see hasPresence). */
  present: boolean;
}

const plans = { input: new WeakMap<z.ZodObject, FieldPlan[]>(), output: new WeakMap<z.ZodObject, FieldPlan[]>() };

/** The fields of an object schema on one side, in order (cached: answers are translated field by field on every call). */
function planOf(schema: z.ZodObject, side: ShapeSide): FieldPlan[] {
  let plan = plans[side].get(schema);
  if (plan === undefined) {
    plan = Object.entries(schema.shape).map(([key, fieldSchema]) => {
      const shape = protoShapeOf(fieldSchema as z.ZodType, side);
      const field = unwrapSchema(typedSchemaOf(fieldSchema as z.ZodType), side);
      const present = hasPresence(shape, field, side);
      return {
        key,
        property: propertyOf(schema, key),
        shape,
        optional: field.optional,
        nullable: field.nullable,
        present,
      };
    });
    plans[side].set(schema, plan);
  }
  return plan;
}

/** REST JSON of an object schema's fields read from a ts-proto object. */
export function objectToRest(
  schema: z.ZodObject,
  side: ShapeSide,
  message: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of planOf(schema, side)) {
    if (f.shape.kind === 'absent') {
      if (side === 'output' && f.shape.null) out[f.key] = null;
      continue;
    }
    // An answer's field without presence is one the service always sets: its protobuf default is its value ('', 0,
    // false). An answer's nullable field the message leaves unset was null, or left out where the field is optional too.
    const v = valueToRest(f.shape, f.key, message[f.property], side === 'output' || f.present, side);
    // A list or map has no presence in protobuf: an answer's optional one that is empty was left out.
    if (side === 'output' && f.optional && !f.nullable && isEmptyCollection(f.shape, v)) continue;
    if (v !== undefined) out[f.key] = v;
    else if (side === 'output' && f.nullable && !f.optional) out[f.key] = null;
  }
  return out;
}

/** An enum's values both ways: protobuf name -> REST value, REST value -> protobuf name, and its 0 value. */
interface EnumTable {
  toRest: Map<unknown, string>;
  fromRest: Map<string, string>;
  unspecified: string;
}

const enumTables = new WeakMap<ProtoShape, Map<string, EnumTable>>();

/** The enum table of an enum shape under a field's name (the field names the enum type unless it is named), cached. */
function enumTableOf(shape: { kind: 'enum'; values: string[]; name?: string }, field: string): EnumTable {
  let byField = enumTables.get(shape);
  if (byField === undefined) enumTables.set(shape, (byField = new Map()));
  let table = byField.get(field);
  if (table === undefined) {
    const name = shape.name ?? enumTypeName(field);
    table = { toRest: new Map(), fromRest: new Map(), unspecified: `${enumPrefix(name)}_UNSPECIFIED` };
    for (const value of shape.values) {
      table.toRest.set(enumValueName(name, value), value);
      table.fromRest.set(value, enumValueName(name, value));
    }
    byField.set(field, table);
  }
  return table;
}

/** True for an empty list of a repeated field or an empty object of a map field. */
function isEmptyCollection(shape: ProtoShape, v: unknown): boolean {
  if (shape.kind === 'repeated') return Array.isArray(v) && v.length === 0;
  return shape.kind === 'map' && typeof v === 'object' && v !== null && Object.keys(v).length === 0;
}

function valueToRest(shape: ProtoShape, field: string, v: unknown, present: boolean, side: ShapeSide): unknown {
  // google.protobuf.Value carries JSON null itself; an answer's null there is a value.
  if (v === null && shape.kind === 'value' && side === 'output') return null;
  if (v === undefined || v === null) return undefined;
  switch (shape.kind) {
    case 'string':
      return !present && v === '' ? undefined : v;
    case 'bool':
      return !present && v === false ? undefined : v;
    case 'int64':
      if (shape.decimal && typeof v === 'number') return String(v);
      return !present && v === 0 ? undefined : v;
    case 'double':
      return !present && v === 0 ? undefined : v;
    case 'timestamp':
      return v instanceof Date ? v.toISOString() : v;
    case 'enum':
      return enumTableOf(shape, field).toRest.get(v);
    case 'message':
      return objectToRest(shape.schema, side, v as Record<string, unknown>);
    case 'repeated': {
      const items = (v as unknown[]).map((item) => valueToRest(shape.item, field, item, true, side));
      return items.length === 0 && side === 'input' ? undefined : items;
    }
    case 'map': {
      const entries = Object.entries(v as Record<string, unknown>).map(([k, item]) => [
        k,
        valueToRest(shape.value, field, item, true, side),
      ]);
      return entries.length === 0 && side === 'input' ? undefined : Object.fromEntries(entries);
    }
    case 'oneof': {
      const chosen = (v as { kind?: { $case: string; value: unknown } }).kind;
      const at = chosen ? shape.oneof.cases.findIndex((c) => tsPropertyName(c.name) === chosen.$case) : -1;
      if (at < 0) return undefined;
      const rest = valueToRest(shape.cases[at]!, shape.oneof.cases[at]!.name, chosen!.value, true, side);
      return shape.oneof.rest ? shape.oneof.rest(rest) : rest;
    }
    case 'absent':
      return undefined;
    case 'value':
    case 'struct':
      return v;
  }
}

/** A ts-proto object of an object schema's message from its REST JSON (an answer of the service). */
export function objectFromRest(
  schema: z.ZodObject,
  side: ShapeSide,
  json: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of planOf(schema, side))
    if (f.shape.kind !== 'absent')
      out[f.property] = valueFromRest(f.shape, f.key, json?.[f.key], f.present, side, json);
  return out;
}

/**
 * A ts-proto value from REST JSON; a missing value without presence takes the protobuf default (encoding needs one).
 * `parent` is the object the value is a field of: a oneof's case may depend on a sibling (an event's `type`).
 */
export function valueFromRest(
  shape: ProtoShape,
  field: string,
  v: unknown,
  present: boolean,
  side: ShapeSide,
  parent?: Record<string, unknown>,
): unknown {
  const missing = v === undefined || v === null;
  switch (shape.kind) {
    case 'string':
      return missing ? (present ? undefined : '') : String(v);
    case 'bool':
      return missing ? (present ? undefined : false) : Boolean(v);
    case 'int64':
    case 'double':
      return missing ? (present ? undefined : 0) : Number(v);
    case 'timestamp':
      return missing ? undefined : new Date(String(v));
    case 'enum': {
      const table = enumTableOf(shape, field);
      return (missing ? undefined : table.fromRest.get(String(v))) ?? table.unspecified;
    }
    case 'message':
      return missing ? undefined : objectFromRest(shape.schema, side, v as Record<string, unknown>);
    case 'repeated':
      // One value where a list goes (v1 constraints take `"en"` for `["en"]`) is a list of one.
      if (!Array.isArray(v)) return missing ? [] : [valueFromRest(shape.item, field, v, false, side, parent)];
      // A null item has no typed form where the items are messages (JSON null is no message): it is left out.
      return v
        .map((item) => valueFromRest(shape.item, field, item, false, side, parent))
        .filter((item) => item !== undefined);
    case 'map':
      return missing
        ? {}
        : Object.fromEntries(
            Object.entries(v as Record<string, unknown>).map(([k, item]) => [
              k,
              valueFromRest(shape.value, field, item, false, side),
            ]),
          );
    case 'oneof': {
      // A list item must be a message: an empty one (no case set) stands for a value no case takes.
      if (missing) return present ? undefined : {};
      const at = shape.oneof.cases.findIndex((c) => c.test(v, parent));
      if (at < 0) return {};
      const c = shape.oneof.cases[at]!;
      return { kind: { $case: tsPropertyName(c.name), value: valueFromRest(shape.cases[at]!, c.name, v, true, side) } };
    }
    case 'absent':
      return undefined;
    case 'value':
      return v === null && side === 'output' ? null : missing ? undefined : v;
    case 'struct':
      return missing ? undefined : v;
  }
}

/**
 * The field of a response message that carries a named result (`Resolution` -> `resolution`); a REST version suffix
 * is not part of the name (`BookingV2` -> `booking`), since the typed API has one booking.
 */
export function resultFieldName(messageName: string): string {
  const name = messageName.replace(/V2$/, '');
  return protoFieldName(name.charAt(0).toLowerCase() + name.slice(1));
}

/**
 * The typed response message (a ts-proto object) of a route's REST result: a named resource goes in its field
 * (`resolution`, `booking`), an anonymous object (a list envelope) field for field, anything else in `result_value`.
 */
export function responseMessageOf(route: RouteSpec, result: unknown): Record<string, unknown> {
  if (!route.response) return {};
  const shape = protoShapeOf(route.response, 'output');
  if (shape.kind === 'message') {
    const named = SCHEMA_NAMES.get(shape.schema);
    const fields = objectFromRest(shape.schema, 'output', (result ?? {}) as Record<string, unknown>);
    return named ? { [tsPropertyName(resultFieldName(named))]: fields } : fields;
  }
  // An answer of several shapes: the response message is its oneof.
  if (shape.kind === 'oneof')
    return (valueFromRest(shape, 'result', result, false, 'output') ?? {}) as Record<string, unknown>;
  return { resultValue: valueFromRest(shape, 'resultValue', result, false, 'output') };
}

/** The REST result carried by a typed response message (the inverse of `responseMessageOf`). */
export function restOfResponseMessage(route: RouteSpec, message: Record<string, unknown>): unknown {
  if (!route.response) return undefined;
  const shape = protoShapeOf(route.response, 'output');
  if (shape.kind === 'message') {
    const named = SCHEMA_NAMES.get(shape.schema);
    const fields = named ? message[tsPropertyName(resultFieldName(named))] : message;
    return fields === undefined ? undefined : objectToRest(shape.schema, 'output', fields as Record<string, unknown>);
  }
  if (shape.kind === 'oneof') return valueToRest(shape, 'result', message, true, 'output');
  return valueToRest(shape, 'resultValue', message.resultValue, true, 'output');
}

/** A typed request message (a ts-proto object) of a REST input: path and query text read as the fields' types. */
export function messageOfRestInput(route: RouteSpec, input: RestInput): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const group of requestGroups(route)) {
    const source = (group.kind === 'body' ? input.body : input[group.kind]) as Record<string, unknown> | undefined;
    for (const f of planOf(group.schema, 'input')) {
      if (f.shape.kind === 'absent') continue;
      let v = source?.[f.key];
      if (group.kind !== 'body' && typeof v === 'string') v = textToJson(f.shape, v);
      message[f.property] = valueFromRest(f.shape, f.key, v, f.present, 'input', source);
    }
  }
  return message;
}

/**
 * A path or query value as the JSON value of its field's shape (`'20'` -> 20, `'true'` -> true). Text that is not
 * the canonical spelling (`'02'`, `'1e3'`, `'ten'`, `'yes'`) reads as a value that spells differently (the gateway
 * itself refuses such text at its edge: request-message-of.ts).
 */
function textToJson(shape: ProtoShape, text: string): unknown {
  if (shape.kind === 'bool') return text === 'true';
  if (shape.kind === 'int64' || shape.kind === 'double') return Number(text);
  if (shape.kind === 'repeated') return text.split(',').map((t) => textToJson(shape.item, t));
  return text;
}

import { z } from 'zod';
import { protoOneofOf, protoViewOf, type ProtoOneof } from './proto-view.js';
import { SCHEMA_NAMES } from './schema-names.js';

/**
 * How a REST shape (a zod schema of the contract) is carried in a typed protobuf message: the rules by which the
 * gateway maps REST onto the hand-written proto files of the internal API (`request-message-of.ts`,
 * `typed-message.ts`). `test/contract/proto-mapping.test.ts` checks them against the proto's descriptors, so a proto
 * edit that breaks the mapping fails there.
 */
export type ProtoShape =
  | { kind: 'string' | 'bool' | 'double' }
  /** `decimal`: REST carries it as decimal text (a query-string integer such as `limit`), the typed form as a number. */
  | { kind: 'int64'; decimal?: true }
  | { kind: 'timestamp' }
  /** `name`: a named zod enum (`ProviderStatus`), one top-level proto enum wherever it is used. */
  | { kind: 'enum'; values: string[]; name?: string }
  | { kind: 'message'; schema: z.ZodObject }
  | { kind: 'repeated'; item: ProtoShape }
  | { kind: 'map'; value: ProtoShape }
  /** A message of one `oneof` (proto-view.ts): one case per shape the union takes. */
  | { kind: 'oneof'; oneof: ProtoOneof; cases: ProtoShape[] }
  /**
   * No field: a REST field a caller may never send (`z.never()`: refused), or one that always answers null
   * (`z.null()`, `null: true`): the typed message has nothing to carry.
   */
  | { kind: 'absent'; null?: true }
  /** google.protobuf.Value: free-form JSON (booking metadata, the audit log's before and after). */
  | { kind: 'value' }
  /** google.protobuf.Struct: a free-form JSON object. */
  | { kind: 'struct' };

/** Which side of a schema a message carries: what a caller sends (requests) or what the service answers. */
export type ShapeSide = 'input' | 'output';

/** A schema with its wrappers taken off, and whether a caller may leave it out or send null. */
export interface Unwrapped {
  schema: z.ZodType;
  optional: boolean;
  nullable: boolean;
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Takes off optional/nullable/default/pipe/lazy wrappers; a pipe shows its `side`, or its input when the output is a transform. */
export function unwrapSchema(schema: z.ZodType, side: ShapeSide): Unwrapped {
  let s = schema;
  let optional = false;
  let nullable = false;
  for (;;) {
    const def = defOf(s);
    switch (def.type) {
      case 'optional':
      case 'default':
      case 'prefault':
        optional = true;
        s = def.innerType as z.ZodType;
        continue;
      case 'nullable':
        nullable = true;
        s = def.innerType as z.ZodType;
        continue;
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        s = def.innerType as z.ZodType;
        continue;
      case 'lazy':
        s = (def.getter as () => z.ZodType)();
        continue;
      case 'pipe': {
        const out = def.out as z.ZodType;
        s = side === 'input' || defOf(out).type === 'transform' ? (def.in as z.ZodType) : out;
        continue;
      }
      default:
        return { schema: s, optional, nullable };
    }
  }
}

const ENUM_VALUE = /^[a-z][a-z0-9_]*$/;
const shapes = { input: new WeakMap<z.ZodType, ProtoShape>(), output: new WeakMap<z.ZodType, ProtoShape>() };

/** True when a string schema is an instant (documented `format: date-time`): carried as google.protobuf.Timestamp. */
function isInstant(s: z.ZodType): boolean {
  const meta = z.globalRegistry.get(s) as { format?: string } | undefined;
  return meta?.format === 'date-time' || defOf(s).format === 'datetime';
}

/** The protobuf shape of a (wrapped) schema on one side. */
export function protoShapeOf(schema: z.ZodType, side: ShapeSide): ProtoShape {
  const cached = shapes[side].get(schema);
  if (cached) return cached;
  const view = protoViewOf(schema);
  if (view?.schema) {
    const element = view.repeated ? arrayElementOf(view.schema, side) : undefined;
    const viewed: ProtoShape = element
      ? { kind: 'repeated', item: protoShapeOf(element, side) }
      : protoShapeOf(view.schema, side);
    shapes[side].set(schema, viewed);
    return viewed;
  }
  const inner = unwrapSchema(schema, side).schema;
  const oneof = protoOneofOf(inner);
  let shape = oneof
    ? { kind: 'oneof' as const, oneof, cases: oneof.cases.map((c) => protoShapeOf(c.schema, side)) }
    : computeShape(inner, side);
  if (side === 'input' && shape.kind === 'string' && isDecimalText(schema)) shape = { kind: 'int64', decimal: true };
  shapes[side].set(schema, shape);
  return shape;
}

/** The item schema of an array schema (wrappers taken off), if it is one. */
function arrayElementOf(schema: z.ZodType, side: ShapeSide): z.ZodType | undefined {
  const def = defOf(unwrapSchema(schema, side).schema);
  return def.type === 'array' ? (def.element as z.ZodType) : undefined;
}

function computeShape(s: z.ZodType, side: ShapeSide): ProtoShape {
  const def = defOf(s);
  switch (def.type) {
    case 'string':
      return isInstant(s) ? { kind: 'timestamp' } : { kind: 'string' };
    case 'number':
      return { kind: isInteger(s) ? 'int64' : 'double' };
    case 'boolean':
      return { kind: 'bool' };
    case 'date':
      return { kind: 'timestamp' };
    case 'enum': {
      const values = Object.values(def.entries as Record<string, string | number>);
      if (values.length === 2 && values.includes('true') && values.includes('false')) return { kind: 'bool' };
      if (values.every((v) => typeof v === 'string' && ENUM_VALUE.test(v))) {
        const name = SCHEMA_NAMES.get(s);
        return name ? { kind: 'enum', values: values as string[], name } : { kind: 'enum', values: values as string[] };
      }
      return { kind: 'string' };
    }
    case 'literal': {
      const values = def.values as unknown[];
      if (values.every((v) => typeof v === 'string')) return { kind: 'string' };
      if (values.every((v) => typeof v === 'boolean')) return { kind: 'bool' };
      return { kind: 'value' };
    }
    case 'object':
      return { kind: 'message', schema: s as z.ZodObject };
    case 'array': {
      const item = protoShapeOf(def.element as z.ZodType, side);
      // Lists of lists and of free-form values have no repeated form in protobuf.
      return item.kind === 'repeated' || item.kind === 'value' || item.kind === 'map' || item.kind === 'struct'
        ? { kind: 'value' }
        : { kind: 'repeated', item };
    }
    case 'record': {
      const value = protoShapeOf(def.valueType as z.ZodType, side);
      return value.kind === 'repeated' ||
        value.kind === 'value' ||
        value.kind === 'map' ||
        value.kind === 'struct' ||
        value.kind === 'timestamp'
        ? { kind: 'struct' }
        : { kind: 'map', value };
    }
    case 'union': {
      const options = (def.options as z.ZodType[]).map((o) => protoShapeOf(o, side));
      if (options.every((o) => o.kind === 'string' || o.kind === 'enum')) return { kind: 'string' };
      // A value or a list of such values (`"en"` or `["en"]`): the list; the service reads both alike.
      const list = options.find((o) => o.kind === 'repeated');
      if (list?.kind === 'repeated' && options.every((o) => o === list || o.kind === list.item.kind)) return list;
      return { kind: 'value' };
    }
    case 'never':
      return { kind: 'absent' };
    case 'null':
      return { kind: 'absent', null: true };
    default:
      return { kind: 'value' };
  }
}

/**
 * True when a schema takes text and gives a whole number (`queryInt`: a string of digits piped to an integer): the
 * typed form carries the number; text that is not the number's canonical decimal has no typed form.
 */
function isDecimalText(schema: z.ZodType): boolean {
  const out = unwrapSchema(schema, 'output').schema;
  return defOf(out).type === 'number' && isInteger(out);
}

/** True when a number schema only takes whole numbers (its JSON Schema says `integer`). */
function isInteger(s: z.ZodType): boolean {
  try {
    return (z.toJSONSchema(s, { unrepresentable: 'any' }) as { type?: string }).type === 'integer';
  } catch {
    return false;
  }
}

/**
 * Whether a field is declared `optional` (has presence): scalars a caller may leave out or the service may answer
 * null, and on requests every number and boolean (0 and false are values a caller may mean). Enums need none:
 * `<PREFIX>_UNSPECIFIED` is "not given"; messages always have presence.
 */
export function hasPresence(shape: ProtoShape, field: Unwrapped, side: ShapeSide): boolean {
  if (shape.kind === 'string') return field.optional || field.nullable;
  if (shape.kind === 'bool' || shape.kind === 'double' || shape.kind === 'int64')
    return field.optional || field.nullable || side === 'input';
  return false;
}

/** The protobuf field name of a REST field (`serviceId` -> `service_id`); ts-proto names it back in camelCase. */
export function protoFieldName(restName: string): string {
  return restName
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * The paging fields of a cursor-paged list as the typed API names them (the usual Google API names): REST `limit` is
 * `page_size`, `cursor` is `page_token` and `nextCursor` is `next_page_token`. REST keeps its names (the contract);
 * the values, limits and errors (which name the REST field) are the same on both doors.
 */
export const LIST_PAGING_FIELDS: Readonly<Record<string, { proto: string }>> = {
  limit: { proto: 'page_size' },
  cursor: { proto: 'page_token' },
  nextCursor: { proto: 'next_page_token' },
};

/**
 * True when an object schema is one side of a cursor-paged list: a query with `cursor` or an answer with
 * `nextCursor`. Other `limit` fields keep their name: the v1 bookings page (`page` and `limit`, a v1 page-number
 * envelope) and the audit chain verification (how many links to check).
 */
function isCursorPaged(schema: z.ZodObject): boolean {
  return 'cursor' in schema.shape || 'nextCursor' in schema.shape;
}

/** The paging field a REST field of an object schema is in the typed API, if it is one (see LIST_PAGING_FIELDS). */
function listPagingField(schema: z.ZodObject, restName: string): { proto: string } | undefined {
  return Object.hasOwn(LIST_PAGING_FIELDS, restName) && isCursorPaged(schema)
    ? LIST_PAGING_FIELDS[restName]
    : undefined;
}

/**
 * The protobuf field name of a field of an object schema: `protoFieldName`, but the paging names on a cursor-paged
 * list (`limit` -> `page_size`). The gateway's mapping names fields with this.
 */
export function protoFieldNameIn(schema: z.ZodObject, restName: string): string {
  const field = schema.shape[restName] as z.ZodType | undefined;
  const view = field && protoViewOf(field);
  return view?.name ?? listPagingField(schema, restName)?.proto ?? namedEnumField(field) ?? protoFieldName(restName);
}

/**
 * The name of a field of a named enum (one enum per concept): the enum's (`status` of type ProviderStatus is
 * `provider_status`), plural for a list. Such fields were typed by an enum of their own message before; the new type
 * came with a new name and number (buf breaking WIRE_JSON: the old ones are reserved).
 */
function namedEnumField(field: z.ZodType | undefined): string | undefined {
  if (!field) return undefined;
  const shape = protoShapeOf(field, 'input');
  if (shape.kind === 'enum' && shape.name) return protoFieldName(shape.name);
  if (shape.kind === 'repeated' && shape.item.kind === 'enum' && shape.item.name)
    return `${protoFieldName(shape.item.name)}s`;
  return undefined;
}

/** The schema a field's typed form is described by: its proto view's (proto-view.ts), else its own. */
export function typedSchemaOf(field: z.ZodType): z.ZodType {
  return protoViewOf(field)?.schema ?? field;
}

/** The camelCase property ts-proto generates for a protobuf field name. */
export function tsPropertyName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The enum type name of a field (`dayParts` -> `DayParts`), declared inside the field's message. */
export function enumTypeName(restField: string): string {
  return restField.charAt(0).toUpperCase() + restField.slice(1);
}

/** The protobuf name of an enum value (`DayParts`, `morning` -> `DAY_PARTS_MORNING`); 0 is `<PREFIX>_UNSPECIFIED`. */
export function enumValueName(enumType: string, value: string): string {
  return `${enumPrefix(enumType)}_${value.toUpperCase()}`;
}

/** The prefix every value of an enum type carries (`DayParts` -> `DAY_PARTS`). */
export function enumPrefix(enumType: string): string {
  return protoFieldName(enumType).toUpperCase();
}

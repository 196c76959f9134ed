import type { z } from 'zod';

/**
 * How the typed API carries a REST field whose zod schema says less than the data holds (`z.unknown()` for a state
 * name, a union the REST contract keeps loose): the schema the proto is made from instead, and the field's proto name
 * when it differs from the REST one (a field whose type changed takes a new name and number; the old ones are
 * reserved). Kept beside the REST schema, never in it: openapi.json is made from the REST schemas alone.
 */
export interface ProtoView {
  /** The schema the field's proto type, comment and conversion come from; unset: the REST schema's (a rename). */
  schema?: z.ZodType;
  /** The proto field name, when not the REST name's snake_case. */
  name?: string;
  /**
   * The schema (an array) is carried as a `repeated` field of its item's shape even when the item is free-form JSON
   * (`repeated google.protobuf.Value`), which protobuf allows: the list keeps its presence rules (a required list left
   * out is refused at the edge) while each item stays a value the implementation judges itself.
   */
  repeated?: true;
}

/** One case of a oneof: its proto field name, schema, and whether a REST value (beside its parent object) is this case. */
export interface OneofCase {
  name: string;
  schema: z.ZodType;
  test: (value: unknown, parent: Record<string, unknown> | undefined) => boolean;
}

/**
 * A union carried as a message of one `oneof` (`message ConstraintValue { oneof kind { string text = 1; ... } }`): its
 * message name, what it holds, and its cases in order (the first whose test passes carries a value).
 */
export interface ProtoOneof {
  message: string;
  cases: OneofCase[];
  /** How REST spells a case's value when it differs from the message's field order (see `jsonbKeyOrder`). */
  rest?: (value: unknown) => unknown;
}

const utf8 = new TextEncoder();

/**
 * A JSON value with every object's keys in the order PostgreSQL's jsonb keeps them (shorter keys first, then by
 * bytes): the order a value read from a jsonb column has, so a typed message read back to REST spells it the same.
 */
export function jsonbKeyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbKeyOrder);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => {
    const x = utf8.encode(a);
    const y = utf8.encode(b);
    if (x.length !== y.length) return x.length - y.length;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return 0;
  });
  return Object.fromEntries(keys.map((k) => [k, jsonbKeyOrder((value as Record<string, unknown>)[k])]));
}

const views = new WeakMap<z.ZodType, ProtoView>();
const oneofs = new WeakMap<z.ZodType, ProtoOneof>();

/** Registers the typed form of a REST field schema; answers the REST schema unchanged. */
export function protoView<T extends z.ZodType>(rest: T, view: ProtoView): T {
  views.set(rest, view);
  return rest;
}

/** The typed form registered for a REST field schema, if any. */
export function protoViewOf(rest: z.ZodType): ProtoView | undefined {
  return views.get(rest);
}

/** Registers a schema (a union, or any schema) as a oneof message; answers the schema unchanged. */
export function protoOneof<T extends z.ZodType>(schema: T, oneof: ProtoOneof): T {
  oneofs.set(schema, oneof);
  return schema;
}

/** The oneof registered for a schema, if any. */
export function protoOneofOf(schema: z.ZodType): ProtoOneof | undefined {
  return oneofs.get(schema);
}

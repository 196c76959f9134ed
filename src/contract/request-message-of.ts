import type { z } from 'zod';
import { validationError, type ErrorDetail } from '../errors/service-error.js';
import type { RouteSpec } from './route.js';
import { findUnstorableInput } from './find-unstorable-input.js';
import { issuesToDetails } from './parse-input.js';
import { unknownMemberRefusal } from './closed-object.js';
import { refusedMemberOf } from './refused-members.js';
import {
  enumTypeName,
  enumValueName,
  hasPresence,
  protoFieldNameIn,
  protoShapeOf,
  tsPropertyName,
  unwrapSchema,
  type ProtoShape,
} from './proto-shape.js';
import { requestGroups, type RestInput } from './typed-message.js';

/** One field of an object schema as the REST-to-message mapping reads it, worked out once per schema. */
interface MappedField {
  key: string;
  property: string;
  schema: z.ZodType;
  shape: ProtoShape;
  /** The message can tell the field left out from its default ('' , 0, false). */
  present: boolean;
  optional: boolean;
  nullable: boolean;
}

const fieldsOf = new WeakMap<z.ZodObject, MappedField[]>();

function mappedFields(schema: z.ZodObject): MappedField[] {
  let fields = fieldsOf.get(schema);
  if (fields === undefined) {
    fields = Object.entries(schema.shape).map(([key, s]) => {
      const fieldSchema = s as z.ZodType;
      const shape = protoShapeOf(fieldSchema, 'input');
      const unwrapped = unwrapSchema(fieldSchema, 'input');
      return {
        key,
        property: tsPropertyName(protoFieldNameIn(schema, key)),
        schema: fieldSchema,
        shape,
        present: hasPresence(shape, unwrapped, 'input'),
        optional: unwrapped.optional,
        nullable: unwrapped.nullable,
      };
    });
    fieldsOf.set(schema, fields);
  }
  return fields;
}

/** True for a JSON member without presence whose rule requires it and takes '' as a value of its own. */
function requiredTakingEmpty(f: Pick<MappedField, 'schema' | 'present'>): boolean {
  return !f.present && f.schema.safeParse('').success && !f.schema.safeParse(undefined).success;
}

/** The JSON type of a value as the contract's messages name it (`received number`). */
function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** A refused value: the contract's detail for it. */
function invalid(field: string, message: string): ErrorDetail {
  return { field, code: 'INVALID', message };
}

const expected = (field: string, type: string, v: unknown) =>
  invalid(field, `Invalid input: expected ${type}, received ${jsonTypeOf(v)}`);

/** Why an empty string is refused for a field: what the field's rule says of it, else that it must not be empty. */
function emptyTextRefusal(schema: z.ZodType, field: string): ErrorDetail[] {
  const r = schema.safeParse('');
  return r.success ? [invalid(field, 'must not be empty')] : issuesToDetails(r.error.issues, field);
}

/** The details of a field's own rule refusing a value (`undefined`: the field left out). */
function ruleRefusal(schema: z.ZodType, field: string, v: unknown): ErrorDetail[] {
  const r = schema.safeParse(v, { reportInput: true });
  return r.success ? [] : issuesToDetails(r.error.issues, field);
}

/** Where one value is read from: a JSON body member, or path or query text. */
type Source = 'json' | 'text';

/**
 * The typed value of one REST value of a field's shape, or the detail saying why the message cannot carry it: a
 * value of another JSON type, a number that is no exact int64, text that spells no number or no instant, a value
 * outside an enum, a null where the field takes none, an empty string where the message cannot tell it from a
 * missing field. Ranges, lengths and references are not looked at: they are the implementation's.
 */
function typedValue(
  f: Pick<MappedField, 'key' | 'schema' | 'shape' | 'present'>,
  shape: ProtoShape,
  v: unknown,
  field: string,
  source: Source,
  problems: ErrorDetail[],
): unknown {
  switch (shape.kind) {
    case 'string':
      if (typeof v !== 'string') return (problems.push(expected(field, 'string', v)), undefined);
      // A string without presence cannot be told apart from one left out: refused here, not lost, in the words of
      // the field's own rule when it refuses an empty string too; unless the member is required and its rule takes
      // '' (a blank display name), since then a member left out is refused instead (objectMessage).
      if (v === '' && !f.present && !(source === 'json' && requiredTakingEmpty(f)))
        return (problems.push(...emptyTextRefusal(f.schema, field)), undefined);
      return v;
    case 'bool':
      if (source === 'text') {
        if (v === 'true' || v === 'false') return v === 'true';
        return (problems.push(invalid(field, 'Invalid option: expected one of "true"|"false"')), undefined);
      }
      if (typeof v !== 'boolean') return (problems.push(expected(field, 'boolean', v)), undefined);
      return v;
    case 'int64': {
      let n: number;
      if (source === 'text' || (shape.decimal && typeof v === 'string')) {
        if (typeof v !== 'string' || !/^\d+$/.test(v))
          return (problems.push(invalid(field, 'must be an integer')), undefined);
        n = Number(v);
      } else {
        if (typeof v !== 'number') return (problems.push(expected(field, 'number', v)), undefined);
        if (!Number.isInteger(v)) return (problems.push(expected(field, 'int', v)), undefined);
        n = v;
      }
      // A number JavaScript cannot hold exactly is no int64 the message can carry.
      if (n > Number.MAX_SAFE_INTEGER)
        return (problems.push(invalid(field, `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`)), undefined);
      if (n < Number.MIN_SAFE_INTEGER)
        return (problems.push(invalid(field, `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`)), undefined);
      return n;
    }
    case 'double': {
      const n = source === 'text' && typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) return (problems.push(expected(field, 'number', v)), undefined);
      return n;
    }
    case 'timestamp': {
      // An instant's REST spelling is the field's own rule (isoTimestamp, instant): read with it, as the message
      // has no text to check later.
      const r = f.schema.safeParse(v);
      if (!r.success)
        return (problems.push(invalid(field, r.error.issues[0]?.message ?? 'is not a timestamp')), undefined);
      return new Date(String(v));
    }
    case 'enum':
      if (typeof v !== 'string' || !shape.values.includes(v))
        return (
          problems.push(
            invalid(field, `Invalid option: expected one of ${shape.values.map((s) => `"${s}"`).join('|')}`),
          ),
          undefined
        );
      // A named enum (one per concept, AnalyticsPeriod) prefixes its values with its own name, not the field's.
      return enumValueName(shape.name ?? enumTypeName(f.key), v);
    case 'message': {
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        return (problems.push(expected(field, 'object', v)), undefined);
      // A message typed by a view of its own (protoView) is read with its REST object beside it (restListOf).
      const rest = unwrapSchema(f.schema, 'input').schema;
      const restObject = rest !== shape.schema && rest.def.type === 'object' ? (rest as z.ZodObject) : undefined;
      return objectMessage(shape.schema, v as Record<string, unknown>, `${field}.`, 'json', problems, restObject);
    }
    case 'repeated': {
      const items = source === 'text' && typeof v === 'string' ? v.split(',') : v;
      if (!Array.isArray(items)) return (problems.push(expected(field, 'array', v)), undefined);
      return items.map((item, i) =>
        typedValue(
          { ...f, present: true },
          shape.item,
          item,
          source === 'text' ? field : `${field}.${i}`,
          source,
          problems,
        ),
      );
    }
    case 'map':
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        return (problems.push(expected(field, 'record', v)), undefined);
      return Object.fromEntries(
        Object.entries(v).map(([k, item]) => [
          k,
          typedValue({ ...f, present: true }, shape.value, item, `${field}.${k}`, source, problems),
        ]),
      );
    case 'struct':
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        return (problems.push(expected(field, 'record', v)), undefined);
      return v;
    case 'value':
      return v;
  }
}

/**
 * The message object of a JSON object (or path or query text) read with an object schema: its known members by their
 * message property, members the schema does not name left out (as the REST contract ignores them).
 */
function objectMessage(
  schema: z.ZodObject,
  json: Record<string, unknown>,
  prefix: string,
  source: Source,
  problems: ErrorDetail[],
  rest?: z.ZodObject,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of mappedFields(schema)) {
    const field = `${prefix}${f.key}`;
    const v = restListOf(f, json[f.key], rest, field, problems);
    if (v === REFUSED) continue;
    if (v === undefined) {
      // A list has no presence in protobuf: a required one left out would read as empty, so it is refused here; so is
      // a required string its rule allows empty, which would read as ''.
      if (source === 'json' && (f.shape.kind === 'repeated' || (f.shape.kind === 'string' && requiredTakingEmpty(f)))) {
        const r = f.schema.safeParse(undefined, { reportInput: true });
        if (!r.success) problems.push(...issuesToDetails(r.error.issues, field));
      }
      continue;
    }
    // A member the contract refuses whatever its value (`z.never()`, a provider that cannot change): the message has
    // no field to carry it, so it is refused here in the words of its rule rather than ignored.
    if (f.shape.kind === 'absent' && !f.shape.null) {
      problems.push(...ruleRefusal(f.schema, field, v));
      continue;
    }
    if (v === null) {
      // A null clears a nullable field: unset here, named by the update mask. Elsewhere the field takes no null.
      if (f.nullable) continue;
      if (f.shape.kind === 'enum') typedValue(f, f.shape, v, field, source, problems);
      else if (f.shape.kind !== 'value') problems.push(expected(field, expectedType(f.shape), v));
      else out[f.property] = v;
      continue;
    }
    const typed = typedValue(f, f.shape, v, field, source, problems);
    if (typed !== undefined) out[f.property] = typed;
  }
  // An object declared closed (closed-object.ts) refuses the members it does not name, which the message cannot carry.
  const refuseMember = source === 'json' ? unknownMemberRefusal(schema) : undefined;
  if (refuseMember)
    for (const key of Object.keys(json))
      if (!Object.hasOwn(schema.shape, key)) problems.push(invalid(`${prefix}${key}`, refuseMember(key)));
  // A strict object (weights) refuses members it does not name, each in the words of its own rule: the message has no
  // field to carry them.
  if (isStrict(schema))
    for (const [key, v] of Object.entries(json)) {
      if (v === undefined || Object.hasOwn(schema.shape, key)) continue;
      const r = schema.safeParse({ [key]: v });
      const message = r.success ? 'is not a member of this object' : (r.error.issues[0]?.message ?? 'is not known');
      problems.push(invalid(`${prefix}${key}`, message));
    }
  return out;
}

const REFUSED = Symbol('refused');

/**
 * A JSON member of a list field as its message carries it, when the field's object has a REST rule of its own (a
 * protoView: the v1 constraints): a single value that rule reads as a list (`"languages": "en"`) is a list of that one
 * value, one it refuses is refused in its words (as REST answered it); anything else as it is.
 */
function restListOf(
  f: Pick<MappedField, 'key' | 'shape'>,
  v: unknown,
  rest: z.ZodObject | undefined,
  field: string,
  problems: ErrorDetail[],
): unknown {
  const rule = rest?.shape[f.key] as z.ZodType | undefined;
  if (f.shape.kind !== 'repeated' || v === undefined || v === null || Array.isArray(v) || !rule) return v;
  const r = rule.safeParse(v, { reportInput: true });
  if (!r.success) return (problems.push(...issuesToDetails(r.error.issues, field)), REFUSED);
  return Array.isArray(r.data) ? [v] : v;
}

/** True for an object schema that refuses members it does not name (`z.strictObject`). */
function isStrict(schema: z.ZodObject): boolean {
  return (schema._zod.def.catchall as z.ZodType | undefined)?._zod.def.type === 'never';
}

/** The JSON type a shape reads, as an error names it. */
function expectedType(shape: ProtoShape): string {
  switch (shape.kind) {
    case 'bool':
      return 'boolean';
    case 'int64':
    case 'double':
      return 'number';
    case 'message':
      return 'object';
    case 'repeated':
      return 'array';
    case 'map':
    case 'struct':
      return 'record';
    default:
      return 'string';
  }
}

/**
 * The typed request message of a REST request, mapped one way: path and query text and the JSON body's members onto
 * the fields of the route's RPC request (a list's `limit`/`cursor` onto `page_size`/`page_token`, a PATCH body's
 * members onto its fields and `update_mask`). What the message cannot carry is refused here with the contract's
 * VALIDATION_ERROR, `field` and `details` (every problem found, in field order): a string where a number goes, a
 * number that is not an integer, text that is no number or instant, a value outside an enum, a null where none is
 * taken, an empty string in a field without presence, a required list left out (the message reads it as empty) or a
 * required text its rule allows empty (it would read as ''), a member the contract refuses whatever its value
 * (`z.never()`), a body that is not an object; before these, what no operation may store (U+0000, unpaired
 * surrogates, nesting past the bound: find-unstorable-input.ts). Members the route does not name are ignored, as the
 * REST contract does, except in an object declared closed (closed-object.ts) or strict (refused in the words of its
 * rule), and a body member declared refused with an error of its own (refused-members.ts), which comes first. Ranges,
 * lengths, other required fields and references are the implementation's to judge, for every caller alike. A route
 * with a REST form of another RPC (`restForm` with a `request` mapping, a v1 form) maps its input onto that RPC's
 * message with its own mapping.
 */
export function requestMessageOf(route: RouteSpec, input: RestInput): Record<string, unknown> {
  // A route whose REST form maps onto another route's RPC maps what its own schemas read onto that RPC's message.
  if (route.restForm?.request) return route.restForm.request(input, (i) => ownMessageOf(route, i));
  return ownMessageOf(route, input);
}

/** The message a REST input maps onto by the route's own REST schemas (requestMessageOf). */
function ownMessageOf(route: RouteSpec, input: RestInput): Record<string, unknown> {
  const unstorable = findUnstorableInput(input);
  if (unstorable) throw validationError([unstorable]);
  const problems: ErrorDetail[] = [];
  const message: Record<string, unknown> = {};
  for (const group of requestGroups(route)) {
    if (group.kind !== 'body') {
      Object.assign(message, objectMessage(group.schema, input[group.kind], '', 'text', problems));
      continue;
    }
    // A route whose body may be left out reads a missing body as `{}` (route.ts).
    const body = input.body === undefined && route.bodyOptional ? {} : input.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      problems.push(expected('(body)', 'object', body ?? null));
      continue;
    }
    // A member the contract refuses with an error of its own is refused first, as the operation did before reading.
    const refused = refusedMemberOf(group.schema, body as Record<string, unknown>);
    if (refused) throw refused;
    Object.assign(message, objectMessage(group.schema, body as Record<string, unknown>, '', 'json', problems));
    // The mask names each field by its protobuf name (REST `status` of type ProviderStatus is `provider_status`).
    if (route.method === 'PATCH')
      message.updateMask = mappedFields(group.schema)
        .filter((f) => f.shape.kind !== 'absent' && (body as Record<string, unknown>)[f.key] !== undefined)
        .map((f) => protoFieldNameIn(group.schema, f.key));
  }
  if (problems.length > 0) throw validationError(problems);
  return message;
}

/** The path parameters a typed request names (`{id}`), as the REST path carried them: what an audit entry names. */
export function pathParamsOfMessage(route: RouteSpec, message: Record<string, unknown>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const group of requestGroups(route)) {
    if (group.kind !== 'params') continue;
    for (const f of mappedFields(group.schema)) {
      const v = message[f.property];
      if (typeof v === 'string' && v !== '') params[f.key] = v;
    }
  }
  return params;
}

/**
 * Generates the service files of proto/scheduling/v1 (all but gateway_service.proto) and resources.proto from the
 * route table and the contract's zod schemas, the single source of every REST shape: each RPC gets a request
 * message with typed fields (path, query and body fields of its route) and a response message with the typed
 * result, which the REST gateway maps its routes onto. Field and enum numbers are kept in proto/field-numbers.json
 * so a field keeps its number for ever (`buf breaking`). `--check` fails when the committed files differ.
 *
 *   npx tsx scripts/generate-proto.ts [--check]
 */
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ALL_ROUTES } from '../src/contract/routes/all-routes.js';
import type { RouteSpec } from '../src/contract/route.js';
import type { GrpcServiceName } from '../src/contract/grpc-service-name.js';
import {
  enumPrefix,
  enumTypeName,
  enumValueName,
  hasPresence,
  listPagingField,
  protoFieldName,
  protoFieldNameIn,
  protoShapeOf,
  tsPropertyName,
  typedSchemaOf,
  unwrapSchema,
  type ProtoShape,
  type ShapeSide,
} from '../src/contract/proto-shape.js';
import {
  HTML_PAGE_FIELD_NUMBER,
  TYPED_FIELD_BASE,
  UPDATE_MASK_FIELD,
  requestGroups,
  resultFieldName,
} from '../src/contract/typed-message.js';
import { SCHEMA_MODULES, SCHEMA_NAMES } from '../src/contract/schema-names.js';
import { protoFieldsOf, protoViewOf } from '../src/contract/proto-view.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../src/errors/error-catalogue.js';
import { ERROR_DOMAIN, HTTP_TO_GRPC } from '../src/grpc/error-metadata.js';
import { status as GrpcStatus } from '@grpc/grpc-js';

const ROOT = join(import.meta.dirname, '..');
const PROTO_DIR = join(ROOT, 'proto/scheduling/v1');
const NUMBERS_FILE = join(ROOT, 'proto/field-numbers.json');
const check = process.argv.includes('--check');

/** What each service is for: the first paragraph of its comment. */
const SERVICE_DOCS: Record<Exclude<GrpcServiceName, 'GatewayService'>, string> = {
  OrganizationService: 'Organizations of a platform account.',
  ApiKeyService: 'API keys of a platform account, and who the calling key is.',
  ProviderService: 'The provider graph: providers and their v1 professional views.',
  CatalogService: 'Services (session types) offered by providers.',
  CalendarService: 'Weekly availability schedules and external calendar feeds.',
  ImportService: 'Asynchronous bulk provider imports.',
  AuditService: 'The immutable audit log and its hash-chain verification.',
  ResolutionService:
    'Resolutions: eligibility, live availability and ranked options; candidates; holds and confirmation.',
  RankingPolicyService: 'Versioned ranking policies.',
  CareService: 'Continuity records, the waitlist and the manual-review queue.',
  BookingService:
    'Bookings: reads, and the direct path (slots of a date, booking a slot, confirming by the e-mailed link, rescheduling, cancelling).',
  AnalyticsService: 'Resolution and booking analytics.',
  WebhookService: "The organization's webhook configuration, its delivery log and replays (CONTRACT part 6).",
  EventService:
    "The organization's events of the last 30 days, each the envelope its webhook deliveries carry (CONTRACT part 8).",
  InspectorService: 'Read-only views of the state machines and of their actors, for developers.',
};

/** A contract error as a caller sees it: the gRPC status it travels as, and its code, the ErrorInfo reason. */
const errorText = (code: ErrorCode) => `${GrpcStatus[HTTP_TO_GRPC[ERROR_CATALOGUE[code].status]!]} \`${code}\``;

/** Errors any authenticated method may answer, beside the method's own. */
const COMMON_ERRORS = (
  ['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED', 'VALIDATION_ERROR', 'SERVICE_UNAVAILABLE'] as const
)
  .map(errorText)
  .join(', ');

/** How every method's errors travel (the rich error model; src/grpc/error-metadata.ts). */
const ERROR_MODEL = `Errors are gRPC statuses with a \`google.rpc.Status\` in the \`grpc-status-details-bin\` trailer: its \`google.rpc.ErrorInfo\` has the contract's error code as \`reason\` (domain \`${ERROR_DOMAIN}\`; metadata \`recoverable\`, and \`suggestedAction\`, \`field\` and \`retryAfterSeconds\` when they apply), a \`google.rpc.BadRequest\` lists the field violations and a \`google.rpc.RetryInfo\` the retry delay`;

/** What every call of every service shares, said once: the file comment of resources.proto. */
const CALLS_DOC = `The messages every service of scheduling.v1 shares, and how every call goes.\n\nMetadata: every call carries the caller's API key (\`authorization: Bearer <key>\`; a platform key may add \`service-organization-id\` to act for one of its organizations), and may carry \`idempotency-key\` and \`x-service-request-id\`.\n\n${ERROR_MODEL}. Every method may answer these (status and reason): ${COMMON_ERRORS}; the comment of a method lists the others it may answer.`;

/** Texts of the route table written for REST callers, said of the typed API instead (`rpcDoc`). */
const RPC_DOC_OVERRIDES: Readonly<Record<string, string>> = {
  ConfirmBookingV1:
    'Confirms a pending booking with the token of its e-mailed confirmation link; the token is the credential, so the call needs no API key. Confirming again answers the same; a cancelled or rescheduled booking is ABORTED `BOOKING_STATE_CONFLICT`. A caller that asks for HTML (`accept` metadata without `application/json`) gets the page to show in `html_page`.',
  WatchActor:
    'Follows one actor live: the actor view of GetActor at once, then one each time the actor changes (at most ~250 ms behind). The stream ends with NOT_FOUND if the actor expires while followed.',
};

/** The route (method and path) each RPC serves, to name an RPC where a route's text names its route. */
const RPC_OF_ROUTE = new Map(ALL_ROUTES.map((r) => [`${r.method} ${r.path.replace(/:\w+/g, ':')}`, r.rpc]));

/** Proto field names of a route's members, by REST name (`limit` -> `page_size` on a cursor-paged list). */
function fieldNamesOf(route: RouteSpec): Map<string, string> {
  const names = new Map<string, string>();
  const add = (schema: z.ZodObject) => {
    for (const key of Object.keys(schema.shape)) names.set(key, protoFieldNameIn(schema, key));
  };
  for (const group of requestGroups(route)) add(group.schema);
  if (route.response) {
    const shape = protoShapeOf(route.response, 'output');
    if (shape.kind === 'message') add(shape.schema);
  }
  return names;
}

/**
 * A text of the route table (summary, description, a field's description) as the typed API says it: routes named by
 * their RPC, HTTP statuses by their gRPC status, headers as metadata, member names as field names, `null` as unset.
 */
function forTypedApi(text: string, names: ReadonlyMap<string, string> = new Map()): string {
  const fieldName = (name: string) =>
    names.get(name) ?? (name === 'nextCursor' ? 'next_page_token' : protoFieldName(name));
  return (
    text
      .replace(/\b(GET|POST|PUT|PATCH|DELETE) (\/api\/v\d\/[\w\-/:]*\w)/g, (all, m: string, path: string) => {
        const rpc = RPC_OF_ROUTE.get(`${m} ${path.replace(/:\w+/g, ':')}`);
        return rpc ?? all;
      })
      .replace(/\b([45]\d\d) ([A-Z][A-Z_]+[A-Z])\b/g, (all, status: string, code: string) =>
        code in ERROR_CATALOGUE ? errorText(code as ErrorCode) : all,
      )
      .replace(/\banswers 202 with\b/g, 'answers with')
      .replace(/\bthe first PUT\b/g, 'the first UpdateWebhook')
      // A bare status a refusal answers (`a repeat is 409`); other numbers (`up to 500 providers`) are no statuses.
      .replace(/\b(40[0-9]|41[0-9]|42[0-9])\b(?! ?ms)/g, (all, status: string) => {
        const grpc = HTTP_TO_GRPC[Number(status)];
        return grpc === undefined ? all : GrpcStatus[grpc]!;
      })
      .replace(/ as `\{[^}`]*\}`/g, '')
      .replace(/`\{([^}`]*)\}`/g, (all, list: string) =>
        list
          .split(/,\s*/)
          .map((name) => `\`${fieldName(name)}\``)
          .join(', ')
          .replace(/, ([^,]*)$/, ' and $1'),
      )
      .replace(/\bService-Organization-Id header\b/g, '`service-organization-id` metadata')
      .replace(/\bService-Organization-Id\b/g, '`service-organization-id`')
      .replace(/\bIdempotency-Key\b/g, '`idempotency-key`')
      .replace(/\bwith cursor pagination\b/g, 'a page at a time')
      .replace(/\bcursor pagination\b/g, 'a page at a time')
      .replace(/`([a-z][a-zA-Z0-9]*)`/g, (all, name: string) =>
        /[A-Z]/.test(name) || names.has(name) ? `\`${fieldName(name)}\`` : all,
      )
      .replace(/(?<![`.])\b([a-z]+[A-Z][a-zA-Z0-9]*)\b(?![`.(])/g, (all, name: string) =>
        names.has(name) ? `\`${fieldName(name)}\`` : all,
      )
      .replace(/\bnull\b/g, 'unset')
  );
}

/** The comment of an RPC: what it does, who may call it, and the errors it may answer beyond the common ones. */
function rpcDoc(r: RouteSpec): string {
  const names = fieldNamesOf(r);
  const summary = r.platformKeyOnly ? r.summary.replace(/ \(platform key\)/, '') : r.summary;
  const what = RPC_DOC_OVERRIDES[r.rpc] ?? forTypedApi(`${summary} ${r.description}`, names);
  const access = r.access ? ` ${forTypedApi(r.access, names)}` : r.platformKeyOnly ? ' Platform keys only.' : '';
  const errors = (r.errors ?? []).length
    ? ` Errors beyond the common ones: ${(r.errors ?? []).map(errorText).join(', ')}.`
    : '';
  return `${what}${access}${errors}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Names of messages: every zod object exported by a schema module is a top-level message in resources.proto.

const schemaNames = SCHEMA_NAMES;
const listed = Object.keys(SCHEMA_MODULES).sort().join(',');
const onDisk = readdirSync(join(ROOT, 'src/contract/schemas'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort()
  .join(',');
if (listed !== onDisk)
  throw new Error(`src/contract/schema-names.ts lists ${listed}; src/contract/schemas holds ${onDisk}`);

// ---------------------------------------------------------------------------------------------------------------
// Field and enum numbers, kept for ever.

type Numbers = Record<string, Record<string, number>>;
const numbers: Numbers = JSON.parse(readFileSync(NUMBERS_FILE, 'utf8').toString() || '{}') as Numbers;

/**
 * The `reserved` lines of a message: every field it ever had (in field-numbers.json) that it no longer declares keeps
 * its number and name out of use, so a field whose type changed comes back under a new number and name. `handled`:
 * names the message reserves or declares by other lines (a response's former `result` and `result_json`).
 */
function reservedLines(scope: string, declared: Set<string>, indent: string, handled: ReadonlySet<string>): string[] {
  const gone = Object.entries(numbers[scope] ?? {})
    .filter(([name]) => !declared.has(name) && !handled.has(name))
    .sort((a, b) => a[1] - b[1]);
  if (!gone.length) return [];
  return [
    `${indent}reserved ${gone.map(([, n]) => n).join(', ')};`,
    `${indent}reserved ${gone.map(([name]) => `"${name}"`).join(', ')};`,
  ];
}

/** The number of a field (or enum value) in a message (or enum), assigning the next free one the first time. */
function numberOf(scope: string, name: string, floor = 1): number {
  const table = (numbers[scope] ??= {});
  if (table[name] === undefined) table[name] = Math.max(floor - 1, 0, ...Object.values(table)) + 1;
  return table[name];
}

// ---------------------------------------------------------------------------------------------------------------
// Comments.

/** JSON Schema facts of a field, for its comment. */
function facts(schema: z.ZodType, side: ShapeSide): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema, { io: side, unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** What the words of a name say (`booking_v2` -> `booking`, `calendar_connection` -> `calendar connection`). */
function wordsOf(name: string): string {
  return protoFieldName(name).replace(/_v\d$/, '').replace(/_/g, ' ');
}

/** Meanings of common fields the contract's schemas leave undescribed, by proto name. */
const FIELD_MEANINGS: Readonly<Record<string, string>> = {
  has_more: 'True when more items follow this page.',
  display_name: 'The name to show.',
  timezone: 'An IANA time zone (`Europe/Berlin`).',
  created_at: 'When it was created.',
  updated_at: 'When it last changed.',
  external_id: "The id the caller's own system gives it.",
  any_of: 'The values it accepts: any one of them satisfies the constraint.',
  start: 'When it starts.',
  end: 'When it ends.',
  email: 'An e-mail address.',
  slug: 'A URL-safe name derived from the title, unique per provider.',
  options_returned: 'How many options the resolution answered.',
  profile_version: "One more each time an update changes the provider's profile.",
  provider_graph_version:
    "The version of the organization's provider graph: it advances with each change to its providers, services or schedules.",
};

/**
 * What an undescribed field means, from its name: `id` is the id of what its message (`subject`) is, `*_id` the id of
 * what it names, `*_at` an instant, `total` the number of items on every page of a list.
 */
function meaningOf(field: string, subject: string, owner: z.ZodObject | undefined, shape: ProtoShape): string {
  if (FIELD_MEANINGS[field]) return FIELD_MEANINGS[field];
  if (field === 'data') return 'The items of this page.';
  if (field === 'id') return subject ? `The id of the ${subject}.` : 'The id.';
  if (field.endsWith('_id')) return `The id of the ${wordsOf(field.slice(0, -3))}.`;
  if (field === 'total' && owner && ('data' in owner.shape || 'nextCursor' in owner.shape))
    return 'How many items match, on all pages together.';
  if (field.endsWith('_at')) {
    const what = wordsOf(field.slice(0, -3));
    if (/(ed|seen|sent)$/.test(what)) return `When it was ${what}.`;
    if (/s$/.test(what)) return `When it ${what}.`;
    return `The ${what} time.`;
  }
  if (shape.kind === 'bool') {
    const words = wordsOf(field);
    return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
  }
  return `The ${wordsOf(field)}.`;
}

/**
 * A sentence on what a field holds: its description (else what its name says), what it is for in the typed API
 * (`use`), then what its type does not say: format, limits and presence. `subject`: what the field's message is (the
 * `id` of a Provider is a provider's), `owner`: the object schema it is a field of.
 */
function describeField(
  restName: string,
  restSchema: z.ZodType,
  shape: ProtoShape,
  side: ShapeSide,
  field: string,
  subject: string,
  owner?: z.ZodObject,
  use?: string,
): string {
  const schema = typedSchemaOf(restSchema);
  const u = unwrapSchema(schema, side);
  const f = facts(u.schema, side);
  const meta = (z.globalRegistry.get(schema) ?? z.globalRegistry.get(u.schema) ?? z.globalRegistry.get(restSchema)) as
    | { description?: string }
    | undefined;
  const names = owner ? new Map(Object.keys(owner.shape).map((k) => [k, protoFieldNameIn(owner, k)])) : undefined;
  const parts: string[] = [];
  if (meta?.description) parts.push(forTypedApi(meta.description.trim().replace(/\.?$/, '.'), names));
  else if (!use) parts.push(meaningOf(field, subject, owner, shape));
  if (use) parts.push(use);
  const item = shape.kind === 'repeated' ? shape.item : shape;
  const itemFacts = shape.kind === 'repeated' ? ((f.items as Record<string, unknown>) ?? {}) : f;
  switch (item.kind) {
    case 'int64':
    case 'double': {
      // A query-string integer's range is on its output side (the text is piped to a number).
      const range =
        item.kind === 'int64' && item.decimal
          ? rangeText(facts(unwrapSchema(schema, 'output').schema, 'output'))
          : rangeText(itemFacts);
      if (range) parts.push(`${range}.`);
      break;
    }
    case 'string': {
      if (itemFacts.format === 'date') {
        if (!parts.some((p) => p.includes('YYYY-MM-DD'))) parts.push('A calendar date, YYYY-MM-DD.');
      } else if (itemFacts.format === 'email' && !parts.includes('An e-mail address.'))
        parts.push('An e-mail address.');
      else if (itemFacts.format === 'uri') parts.push('A URL.');
      const len =
        itemFacts.maxLength !== undefined
          ? itemFacts.minLength
            ? `${itemFacts.minLength} to ${itemFacts.maxLength} characters`
            : `At most ${itemFacts.maxLength} characters`
          : '';
      if (len) parts.push(`${len}.`);
      if (itemFacts.pattern && !itemFacts.format) parts.push(`Matches \`${String(itemFacts.pattern)}\`.`);
      if (Array.isArray(itemFacts.enum))
        parts.push(`One of ${(itemFacts.enum as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}.`);
      break;
    }
    case 'map':
      parts.push('Keyed by name.');
      break;
    case 'struct':
      parts.push('A free-form JSON object.');
      break;
    case 'value':
      parts.push('Free-form JSON.');
      break;
    case 'oneof':
      parts.push(item.oneof.doc);
      break;
    default:
      break;
  }
  if (shape.kind === 'repeated' && f.maxItems !== undefined) parts.push(`At most ${f.maxItems} items.`);
  if (side === 'input') parts.push(u.optional ? 'Optional.' : shape.kind === 'repeated' ? '' : 'Required.');
  else if ((u.optional || u.nullable) && !use) parts.push('Unset when there is none.');
  return parts.filter(Boolean).join(' ');
}

/** The range JSON Schema facts give a number: `From 1 to 500`, `At least 0`, or nothing (the safe-integer bound is none). */
function rangeText(f: Record<string, unknown>): string {
  const min = f.minimum ?? f.exclusiveMinimum;
  const rawMax = f.maximum ?? f.exclusiveMaximum;
  const max = rawMax === Number.MAX_SAFE_INTEGER ? undefined : rawMax;
  return min !== undefined && max !== undefined
    ? `From ${min} to ${max}`
    : min !== undefined
      ? `At least ${min}`
      : max !== undefined
        ? `At most ${max}`
        : '';
}

/** Wraps text into `//` comment lines of at most 118 columns at an indent. */
function comment(text: string, indent: string): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      if (line && indent.length + 3 + line.length + 1 + word.length > 118) {
        lines.push(`${indent}// ${line}`);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line ? `${indent}// ${line}` : `${indent}//`);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------------------
// Messages.

/** Imports a proto file needs, collected while its messages are written. */
type Imports = Set<string>;
const resourceMessages = new Map<string, string[]>();
const resourceImports: Imports = new Set();

/** The proto type of a field, writing nested messages and enums into `nested` and named ones into resources.proto. */
function typeOf(
  shape: ProtoShape,
  restField: string,
  scope: string,
  nested: string[],
  indent: string,
  side: ShapeSide,
  imports: Imports,
  schema: z.ZodType,
): string {
  switch (shape.kind) {
    case 'string':
    case 'bool':
    case 'double':
    case 'int64':
      return shape.kind;
    case 'timestamp':
      imports.add('google/protobuf/timestamp.proto');
      return 'google.protobuf.Timestamp';
    case 'value':
      imports.add('google/protobuf/struct.proto');
      return 'google.protobuf.Value';
    case 'struct':
      imports.add('google/protobuf/struct.proto');
      return 'google.protobuf.Struct';
    case 'absent':
      throw new Error(`${scope}.${restField}: a field with no typed form has no type`);
    case 'oneof':
      writeOneof(shape, side);
      return `.scheduling.v1.${shape.oneof.message}`;
    case 'enum': {
      if (shape.name) {
        writeNamedEnum(shape.name, shape.values);
        return `.scheduling.v1.${shape.name}`;
      }
      const name = enumTypeName(restField);
      const full = `${scope}.${name}`;
      nested.push(
        ...comment(`The values of ${wordsOf(restField)}; \`${enumPrefix(name)}_UNSPECIFIED\` means not given.`, indent),
      );
      nested.push(`${indent}enum ${name} {`);
      nested.push(...comment('Not given.', `${indent}  `));
      nested.push(`${indent}  ${enumPrefix(name)}_UNSPECIFIED = 0;`);
      for (const v of shape.values) {
        nested.push(...comment(valueDoc(v), `${indent}  `));
        nested.push(`${indent}  ${enumValueName(name, v)} = ${numberOf(full, v)};`);
      }
      nested.push(`${indent}}`);
      return name;
    }
    case 'repeated':
      return `repeated ${typeOf(shape.item, restField, scope, nested, indent, side, imports, itemSchemaOf(schema, side))}`;
    case 'map':
      return `map<string, ${typeOf(shape.value, restField, scope, nested, indent, side, imports, valueSchemaOf(schema, side))}>`;
    case 'message': {
      const named = schemaNames.get(shape.schema);
      if (named) {
        writeResource(named, shape.schema, side);
        return `.scheduling.v1.${named}`;
      }
      const name = enumTypeName(restField);
      nested.push(...comment(messageDocOf(shape.schema) ?? `The ${wordsOf(restField)}.`, indent));
      nested.push(...messageBody(name, `${scope}.${name}`, shape.schema, side, indent, imports, 1));
      return name;
    }
  }
}

/** The comment of an enum value: the value in words (`zero_results` -> `Zero results.`). */
function valueDoc(value: string): string {
  const words = value.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

/** The description the contract gives an object schema, if any. */
function messageDocOf(schema: z.ZodType): string | undefined {
  const doc = (z.globalRegistry.get(schema) as { description?: string } | undefined)?.description;
  return doc ? forTypedApi(doc.trim().replace(/\.?$/, '.')) : undefined;
}

/** `A` or `An` before a word. */
const an = (word: string) => (/^[aeiou]/i.test(word) ? `An ${word}` : `A ${word}`);

/** What a message is, from its name, when the contract does not say (`DeletedService`, `ProviderList`, `DayInput`). */
function resourceDocOf(name: string): string {
  const words = (n: string) => wordsOf(n.charAt(0).toLowerCase() + n.slice(1)).replace(/ v\d\b/g, '');
  const v1 = /V1/.test(name) ? ' (v1 shape)' : '';
  const bare = name.replace(/V\d/g, '');
  if (RESOURCE_DOCS[name]) return RESOURCE_DOCS[name];
  if (/^Deleted/.test(bare)) return `${an(words(bare.slice(7)))} as it was when deleted, with \`deleted\` set.`;
  if (/(List|Page)$/.test(bare)) return `A page of ${words(bare.replace(/(List|Page)$/, ''))}s${v1}.`;
  if (/Input$/.test(bare)) return `${an(words(bare.slice(0, -5)))} as a caller gives it.`;
  return `${an(words(bare))}${v1}.`;
}

/** What the main resources are, for their message comments. */
const RESOURCE_DOCS: Readonly<Record<string, string>> = {
  Organization: 'An organization of a platform account: the tenant that providers, services and bookings belong to.',
  ApiKey: 'An API key of a platform account (never its secret).',
  CreatedApiKey: 'A newly created API key, with its secret: shown this once.',
  Provider: 'A provider (a professional) of an organization, with the codes resolutions screen and rank by.',
  Professional: 'A provider in the v1 shape.',
  Service: 'A service (session type) a provider offers: duration, price, modality and the slot rules.',
  CalendarConnection: "A provider's weekly availability schedule, date overrides and optional ICS feed.",
  Resolution: 'A resolution: a request resolved into ranked options, each a provider and a slot.',
  ResolutionOption: 'One ranked option of a resolution: a provider, a slot and why it ranks where it does.',
  Hold: "A short claim on an option's slot, so that it can be confirmed.",
  BookingV2: 'A booking.',
  RankingPolicy: 'A ranking policy: its working copy and the number of its active version.',
  RankingPolicyVersion: 'An immutable snapshot of a ranking policy, made when it was activated.',
  WaitlistEntry: 'A customer waiting for a slot of a service.',
  ContinuityRecord: 'A record that a client has seen a provider (it ranks the provider higher for that client).',
  ManualReviewEntry: 'A provider whose required data was unknown to a resolution, waiting to be fixed.',
  ProviderImport: 'An asynchronous bulk provider import job: status, progress, summary and per-row results.',
  Webhook: "The organization's webhook configuration (never its secret).",
  Delivery: 'A webhook delivery record with its latest attempt.',
  Event: 'An event of the organization: the envelope its webhook deliveries carry.',
  AuditEvent: 'An entry of the immutable audit log.',
  ActorView: 'The live view of one resolution, hold or booking actor.',
  Machine: 'A state machine the service runs, read from its definition.',
};

/** The lines of an enum type: `<PREFIX>_UNSPECIFIED` = 0, then each value under its kept number. */
function enumLines(name: string, full: string, values: string[], indent: string, doc: string): string[] {
  const lines = [...comment(doc, indent), `${indent}enum ${name} {`];
  lines.push(...comment('Not given.', `${indent}  `), `${indent}  ${enumPrefix(name)}_UNSPECIFIED = 0;`);
  for (const v of values) {
    lines.push(...comment(valueDoc(v), `${indent}  `));
    lines.push(`${indent}  ${enumValueName(name, v)} = ${numberOf(full, v)};`);
  }
  lines.push(`${indent}}`);
  return lines;
}

/** Writes a named zod enum (`ProviderStatus`) into resources.proto once: one enum per concept, used by every field. */
function writeNamedEnum(name: string, values: string[]): void {
  if (resourceMessages.has(name)) return;
  resourceMessages.set(
    name,
    enumLines(
      name,
      `scheduling.v1.${name}`,
      values,
      '',
      `The values of ${wordsOf(name)}; \`${enumPrefix(name)}_UNSPECIFIED\` means not given.`,
    ),
  );
}

/** Writes a oneof message (proto-view.ts) into resources.proto once: one field per case, in one `oneof kind`. */
function writeOneof(shape: Extract<ProtoShape, { kind: 'oneof' }>, side: ShapeSide): void {
  const name = shape.oneof.message;
  if (resourceMessages.has(name)) return;
  resourceMessages.set(name, []);
  const scope = `scheduling.v1.${name}`;
  resourceMessages.set(name, [
    ...comment(`${name}: ${shape.oneof.doc.charAt(0).toLowerCase()}${shape.oneof.doc.slice(1)}`, ''),
    `message ${name} {`,
    ...oneofBody(shape, scope, side, '  ', resourceImports),
    '}',
  ]);
}

/** The nested declarations and the `oneof kind { ... }` of a oneof shape, inside the message of `scope`. */
function oneofBody(
  shape: Extract<ProtoShape, { kind: 'oneof' }>,
  scope: string,
  side: ShapeSide,
  indent: string,
  imports: Imports,
  doc = 'Exactly one is set.',
): string[] {
  const nested: string[] = [];
  const fields: string[] = [];
  shape.oneof.cases.forEach((c, i) => {
    const caseShape = shape.cases[i]!;
    const type = typeOf(caseShape, tsPropertyName(c.name), scope, nested, indent, side, imports, c.schema);
    const doc = (z.globalRegistry.get(c.schema) as { description?: string } | undefined)?.description;
    fields.push(...comment(doc ?? `The value when it is ${c.name.replace(/_/g, ' ')}.`, `${indent}  `));
    fields.push(`${indent}  ${type} ${c.name} = ${numberOf(scope, c.name)};`);
  });
  return [...nested, ...comment(doc, indent), `${indent}oneof kind {`, ...fields, `${indent}}`];
}

/** The item schema of an array schema (wrappers taken off). */
function itemSchemaOf(schema: z.ZodType, side: ShapeSide): z.ZodType {
  return (unwrapSchema(schema, side).schema as unknown as { _zod: { def: { element: z.ZodType } } })._zod.def.element;
}

/** The value schema of a record schema (wrappers taken off). */
function valueSchemaOf(schema: z.ZodType, side: ShapeSide): z.ZodType {
  return (unwrapSchema(schema, side).schema as unknown as { _zod: { def: { valueType: z.ZodType } } })._zod.def
    .valueType;
}

/** Writes one field of an object schema (`owner`) into a message: its comment and declaration. */
function fieldLines(
  owner: z.ZodObject,
  restName: string,
  schema: z.ZodType,
  side: ShapeSide,
  scope: string,
  nested: string[],
  indent: string,
  imports: Imports,
  floor: number,
  declared: Set<string>,
  subject = subjectOfScope(scope),
): string[] {
  const name = protoFieldNameIn(owner, restName);
  if (!/^[a-z][a-z0-9_]*$/.test(name))
    throw new Error(`${scope}.${restName}: ${name} is not a lower_snake_case field name`);
  const shape = protoShapeOf(schema, side);
  if (shape.kind === 'absent') return [];
  declared.add(name);
  // A renamed field (proto-view.ts) names its nested types after its proto name.
  const renamed = protoViewOf(schema)?.name;
  const typeBase = renamed ? tsPropertyName(renamed) : restName;
  const typed = typedSchemaOf(schema);
  const type = typeOf(shape, typeBase, scope, nested, indent, side, imports, typed);
  const presence = hasPresence(shape, unwrapSchema(typed, side), side) ? 'optional ' : '';
  return [
    ...comment(
      describeField(restName, schema, shape, side, name, subject, owner, listPagingField(owner, restName)?.doc),
      indent,
    ),
    `${indent}${presence}${type} ${name} = ${numberOf(scope, name, floor)};`,
  ];
}

/** The fields of an object schema's message: its REST fields, then those only the typed API carries (protoFields). */
function typedEntries(schema: z.ZodObject): [string, z.ZodType][] {
  return [...Object.entries(schema.shape), ...Object.entries(protoFieldsOf(schema))] as [string, z.ZodType][];
}

/** What a message's `id` is the id of, from its name (`scheduling.v1.BookingV2` -> `booking`). */
function subjectOfScope(scope: string): string {
  const last = scope.split('.').pop()!;
  return /(Request|Response)$/.test(last) ? '' : wordsOf(last.charAt(0).toLowerCase() + last.slice(1));
}

/** What the `id` of a route's request names, from its path (`/api/v2/ranking-policies/:id` -> `ranking policy`). */
function subjectOfRoute(route: RouteSpec): string {
  const segments = route.path.split('/');
  const at = segments.indexOf(':id');
  const noun = segments
    .slice(0, at < 0 ? segments.length : at)
    .reverse()
    .find((seg) => seg && !seg.startsWith(':'));
  if (!noun || at < 0) return '';
  if (noun === 'waitlist') return 'waitlist entry';
  if (noun === 'api-keys') return 'API key';
  if (noun === 'actors') return 'actor';
  return noun.replace(/-/g, ' ').replace(/ies$/, 'y').replace(/s$/, '');
}

/** A message declaration from an object schema (nested declarations first). */
function messageBody(
  name: string,
  scope: string,
  schema: z.ZodObject,
  side: ShapeSide,
  indent: string,
  imports: Imports,
  floor: number,
): string[] {
  const nested: string[] = [];
  const fields: string[] = [];
  const declared = new Set<string>();
  for (const [key, value] of typedEntries(schema))
    fields.push(...fieldLines(schema, key, value, side, scope, nested, `${indent}  `, imports, floor, declared));
  const reserved = reservedLines(scope, declared, `${indent}  `, new Set());
  return [`${indent}message ${name} {`, ...nested, ...reserved, ...fields, `${indent}}`];
}

/** Writes a named message into resources.proto once (the answer side: resources are what the service answers). */
function writeResource(name: string, schema: z.ZodObject, side: ShapeSide): void {
  if (resourceMessages.has(name)) return;
  resourceMessages.set(name, []);
  const lines = [
    ...comment(messageDocOf(schema) ?? resourceDocOf(name), ''),
    ...messageBody(name, `scheduling.v1.${name}`, schema, side, '', resourceImports, 1),
  ];
  resourceMessages.set(name, lines);
}

// ---------------------------------------------------------------------------------------------------------------
// Services.

/**
 * Numbers and names every route's request message keeps out of use: the gateway form of earlier versions, REST input
 * as text (`params` 1 and `query` 2, the path and query text; `body` 3, the body as a google.protobuf.Value, then
 * `body_json` 4, as JSON text). Requests are typed only now. Responses carried the answer as JSON (1, 2).
 */
const FORMER_GATEWAY_FORM: Readonly<Record<string, number>> = { params: 1, query: 2, body: 3, body_json: 4 };
const RESERVED_RESPONSE = ['  reserved 1, 2;', '  reserved "result", "result_json";'];
const RESPONSE_RESERVED_NAMES: ReadonlySet<string> = new Set(['result', 'result_json']);

/** The response field of a route that answers browsers an HTML page (the e-mailed confirmation link). */
const HTML_PAGE_FIELD = [
  '  // The page to show a browser, set instead of the other fields when the caller asked for HTML (`accept` metadata',
  '  // without `application/json`).',
  `  string html_page = ${HTML_PAGE_FIELD_NUMBER};`,
];

/** The request and response messages of one route's RPC. */
function rpcMessages(route: RouteSpec, imports: Imports): string[] {
  const reqName = `${route.rpc}Request`;
  const resName = `${route.rpc}Response`;
  const reqScope = `scheduling.v1.${reqName}`;
  const resScope = `scheduling.v1.${resName}`;
  const nested: string[] = [];
  const fields: string[] = [];
  const declared = new Set<string>();
  for (const group of requestGroups(route)) {
    for (const [key, value] of typedEntries(group.schema)) {
      if (protoFieldNameIn(group.schema, key) in FORMER_GATEWAY_FORM)
        throw new Error(`${route.rpc}: field ${key} takes a name the former gateway form reserves`);
      fields.push(
        ...fieldLines(
          group.schema,
          key,
          value as z.ZodType,
          'input',
          reqScope,
          nested,
          '  ',
          imports,
          TYPED_FIELD_BASE,
          declared,
          subjectOfRoute(route),
        ),
      );
    }
  }
  if (route.method === 'PATCH') {
    declared.add('update_mask');
    imports.add('google/protobuf/field_mask.proto');
    numbers[reqScope] = { ...numbers[reqScope], update_mask: UPDATE_MASK_FIELD };
    fields.unshift(
      ...comment(
        'Which fields to change, by name (`display_name`): a named field left unset is cleared. Without a mask, the fields that are set change and the others stay. An unknown name is INVALID_ARGUMENT `VALIDATION_ERROR` on `updateMask`.',
        '  ',
      ),
      `  google.protobuf.FieldMask update_mask = ${UPDATE_MASK_FIELD};`,
    );
  }
  const out: string[] = [];
  out.push(...comment(`The request of ${route.rpc}.`, ''));
  // The former gateway form joins the fields the message had (numbers kept in field-numbers.json): reserved with them.
  numbers[reqScope] = { ...FORMER_GATEWAY_FORM, ...numbers[reqScope] };
  const reqReserved = reservedLines(reqScope, declared, '  ', new Set());
  out.push(`message ${reqName} {`, ...nested, ...reqReserved, ...fields, '}', '');
  const resNested: string[] = [];
  const resFields: string[] = [];
  const resDeclared = new Set<string>();
  if (route.response) {
    const shape = protoShapeOf(route.response, 'output');
    const named = shape.kind === 'message' ? schemaNames.get(shape.schema) : undefined;
    if (shape.kind === 'oneof') {
      // The answer takes one of several shapes: the response message is the oneof (typed-message.ts reads it so).
      for (const c of shape.oneof.cases) resDeclared.add(c.name);
      resFields.push(
        ...oneofBody(shape, resScope, 'output', '  ', imports, `The answer, exactly one of: ${shape.oneof.doc}`),
      );
    } else if (shape.kind === 'message' && !named) {
      for (const [key, value] of typedEntries(shape.schema))
        resFields.push(
          ...fieldLines(
            shape.schema,
            key,
            value as z.ZodType,
            'output',
            resScope,
            resNested,
            '  ',
            imports,
            TYPED_FIELD_BASE,
            resDeclared,
            subjectOfRoute(route),
          ),
        );
    } else {
      const field = named ? resultFieldName(named) : 'result_value';
      resDeclared.add(protoFieldName(field));
      const type = typeOf(shape, field, resScope, resNested, '  ', 'output', imports, route.response);
      if (named) imports.add('scheduling/v1/resources.proto');
      resFields.push(...comment(named ? `The ${wordsOf(resultFieldName(named))}.` : 'The answer.', '  '));
      resFields.push(
        `  ${type} ${protoFieldName(field)} = ${numberOf(resScope, protoFieldName(field), TYPED_FIELD_BASE)};`,
      );
    }
  }
  out.push(...comment(`The response of ${route.rpc}.`, ''));
  if (route.htmlAnswer) {
    resFields.push(...HTML_PAGE_FIELD);
    resDeclared.add('html_page');
  }
  const resReserved = reservedLines(resScope, resDeclared, '  ', RESPONSE_RESERVED_NAMES);
  out.push(`message ${resName} {`, ...resNested, ...RESERVED_RESPONSE, ...resReserved, ...resFields, '}', '');
  if (out.some((l) => l.includes('.scheduling.v1.'))) imports.add('scheduling/v1/resources.proto');
  return out;
}

/** The text of a service's proto file. */
function serviceFile(service: Exclude<GrpcServiceName, 'GatewayService'>, routes: RouteSpec[]): string {
  const imports: Imports = new Set();
  const messages: string[] = [];
  // A route whose REST form maps onto another route's RPC (RouteSpec.restForm) adds no messages of its own.
  const rpcRoutes = routes.filter((r) => !r.restForm);
  for (const r of rpcRoutes) messages.push(...rpcMessages(r, imports));
  const lines: string[] = ['syntax = "proto3";', '', 'package scheduling.v1;', ''];
  for (const i of [...imports].sort()) lines.push(`import "${i}";`);
  lines.push('');
  lines.push(...comment(`${SERVICE_DOCS[service]} Calls, metadata and errors: see the top of resources.proto.`, ''));
  lines.push(`service ${service} {`);
  for (const r of rpcRoutes) {
    lines.push(...comment(rpcDoc(r), '  '));
    lines.push(`  rpc ${r.rpc}(${r.rpc}Request) returns (${r.stream ? 'stream ' : ''}${r.rpc}Response);`);
  }
  lines.push('}', '', ...messages);
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** The text of resources.proto. */
function resourcesFile(): string {
  const lines = [...comment(CALLS_DOC, ''), '', 'syntax = "proto3";', '', 'package scheduling.v1;', ''];
  for (const i of [...resourceImports].sort()) lines.push(`import "${i}";`);
  lines.push('');
  for (const name of [...resourceMessages.keys()].sort()) lines.push(...resourceMessages.get(name)!, '');
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

const byService = new Map<Exclude<GrpcServiceName, 'GatewayService'>, RouteSpec[]>();
for (const r of ALL_ROUTES) {
  if (r.service === 'GatewayService') continue;
  const list = byService.get(r.service) ?? [];
  list.push(r);
  byService.set(r.service, list);
}
const files = new Map<string, string>();
for (const [service, routes] of byService)
  files.set(join(PROTO_DIR, `${protoFieldName(service)}.proto`), serviceFile(service, routes));
files.set(join(PROTO_DIR, 'resources.proto'), resourcesFile());
const sortedNumbers = Object.fromEntries(
  Object.keys(numbers)
    .sort()
    .map((k) => [k, numbers[k]]),
);
files.set(NUMBERS_FILE, `${JSON.stringify(sortedNumbers, null, 1)}\n`);

const stale: string[] = [];
for (const [path, text] of files) {
  const file = path.slice(ROOT.length + 1);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = '';
  }
  if (current === text) continue;
  stale.push(file);
  if (!check) writeFileSync(path, text);
}
if (check && stale.length) {
  console.error(`proto/ is stale (run \`npm run generate\`): ${stale.join(', ')}`);
  process.exit(1);
}
console.log(check ? 'proto/ is up to date' : `proto/: ${stale.length ? `wrote ${stale.join(', ')}` : 'up to date'}`);

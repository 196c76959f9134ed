import http from 'node:http';
import { connect } from 'node:net';
import { jsonText, percentEncode, plainText, resolveRefs, type FuzzRequest, type WireValue } from './fuzz-request.js';

/** What the service answered to one fuzzed request (or why there was no answer). */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** An event stream opened: only its head was read. */
  stream?: boolean;
  /** No answer: a timeout, a reset, a closed connection. */
  failure?: string;
}

/** A request as it goes on the wire. */
export interface WireRequest {
  method: string;
  /** Path and query (bytes 0x21-0xff, latin1). */
  target: string;
  headers: [string, string][];
  body?: Buffer;
  /** The bytes of a raw request. */
  raw?: Buffer;
}

const REQUEST_TIMEOUT_MS = 20_000;
const RAW_TIMEOUT_MS = 5_000;
const MAX_BODY = 4 * 1024 * 1024;

/** Text on the wire for a path or query value: percent-encoded, or its latin1 bytes as they are (others encoded). */
function wire(v: WireValue, resolved: unknown): string {
  const text = plainText(resolved);
  if (v.encoding === 'uri') return percentEncode(text);
  return [...text]
    .map((c) => (c.charCodeAt(0) >= 0x21 && c.charCodeAt(0) <= 0xff && c.length === 1 ? c : percentEncode(c)))
    .join('');
}

/** Header text Node will send: a character it refuses (outside tab, 0x20-0x7e, 0x80-0xff) becomes `?`. */
function headerText(v: unknown): string {
  const text = Array.isArray(v) ? v.map(plainText).join('') : plainText(v);
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

/** Resolves a request's markers (making fresh fixtures it needs) and writes it as it goes on the wire. */
export async function materialize(r: FuzzRequest, lookup: (name: string) => Promise<unknown>): Promise<WireRequest> {
  for (const need of r.needs ?? []) await lookup(need);
  let path = r.route;
  for (const [name, v] of Object.entries(r.path))
    path = path.replace(`{${name}}`, wire(v, await resolveRefs(v.value, lookup)));
  const query: string[] = [];
  for (const [k, v] of r.query) query.push(`${percentEncode(k)}=${wire(v, await resolveRefs(v.value, lookup))}`);
  const target = query.length ? `${path}?${query.join('&')}` : path;
  if (r.raw !== undefined) {
    const filled = r.raw
      .replace('{target}', target)
      .replace('{auth}', String(await lookup('key.platform')))
      .replace('{org}', String(await lookup('org')))
      .replace('{long}', 'x'.repeat(20_000));
    return { method: r.method, target, headers: [], raw: Buffer.from(filled, 'latin1') };
  }
  const headers: [string, string][] = [];
  for (const [k, v] of r.headers) headers.push([k, headerText(await resolveRefs(v, lookup))]);
  let body: Buffer | undefined;
  if (r.body && 'json' in r.body) body = Buffer.from(jsonText(await resolveRefs(r.body.json, lookup)), 'utf8');
  else if (r.body && 'bytes' in r.body) body = Buffer.from(r.body.bytes, 'latin1');
  else if (r.body && 'huge' in r.body) body = Buffer.from(`{"a":"${'x'.repeat(r.body.huge)}"}`, 'latin1');
  return { method: r.method, target, headers, ...(body ? { body } : {}) };
}

/**
 * Node's parser refuses a request head over 16 KB and closes the connection while the client may still be writing it;
 * such a request goes on its own socket, whose answer is read whatever happens to the writing.
 */
const HEAD_LIMIT = 16 * 1024;

/** The bytes of a request on a connection of its own. */
function rawBytes(base: URL, w: WireRequest): Buffer {
  const head = [
    `${w.method} ${w.target} HTTP/1.1`,
    `Host: ${base.host}`,
    ...w.headers.map(([k, v]) => `${k}: ${v}`),
    ...(w.body ? [`Content-Length: ${w.body.length}`] : []),
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), w.body ?? Buffer.alloc(0)]);
}

/** Sends a request through Node's HTTP client on `agent` (raw requests and over-long heads on a socket of their own). */
export function sendWire(base: URL, agent: http.Agent, w: WireRequest): Promise<FuzzAnswer> {
  if (w.raw) return sendRaw(base, w.raw);
  if (w.target.length + w.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) > HEAD_LIMIT)
    return sendRaw(base, rawBytes(base, w));
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: FuzzAnswer) => {
      if (!settled) {
        settled = true;
        resolve(a);
      }
    };
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of w.headers) headers[k] = k in headers ? [...[headers[k]!].flat(), v] : v;
    if (w.body && !('transfer-encoding' in headers)) headers['content-length'] = String(w.body.length);
    let req: http.ClientRequest;
    try {
      req = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: w.method,
          path: w.target,
          headers,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (res) => {
          const out: FuzzAnswer = {
            status: res.statusCode ?? 0,
            headers: flatHeaders(res.headers),
            body: Buffer.alloc(0),
          };
          if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
            res.destroy();
            return done({ ...out, stream: true });
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_BODY) chunks.push(c);
          });
          res.on('end', () => done({ ...out, body: Buffer.concat(chunks) }));
          res.on('error', (err) => done({ ...out, body: Buffer.concat(chunks), failure: `response: ${err.message}` }));
        },
      );
    } catch (err) {
      return done({
        status: 0,
        headers: {},
        body: Buffer.alloc(0),
        failure: `the client refused to send it: ${(err as Error).message}`,
      });
    }
    req.on('timeout', () => {
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`));
    });
    req.on('error', (err) => done({ status: 0, headers: {}, body: Buffer.alloc(0), failure: err.message }));
    if (w.body) req.end(w.body);
    else req.end();
  });
}

/** Lower-cased response headers, repeated ones joined. */
function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Writes raw bytes on a new connection and reads one answer (until its length is read or the server closes). */
function sendRaw(base: URL, bytes: Buffer): Promise<FuzzAnswer> {
  return new Promise((resolve) => {
    const socket = connect(Number(base.port), base.hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (failure?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseAnswer(Buffer.concat(chunks));
      resolve(
        parsed ?? {
          status: 0,
          headers: {},
          body: Buffer.alloc(0),
          failure: failure ?? 'the connection closed without an answer',
        },
      );
    };
    const timer = setTimeout(() => finish(`no answer within ${RAW_TIMEOUT_MS} ms`), RAW_TIMEOUT_MS);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const a = parseAnswer(Buffer.concat(chunks));
      if (a?.complete) finish();
    });
    // The server may close while the rest of an over-long head is still being written: what it answered is read already.
    socket.on('error', () => undefined);
    socket.on('close', () => finish());
    socket.write(bytes);
  });
}

/** Parses an HTTP/1.1 answer: status, headers and (Content-Length or chunked) body; undefined before the head is whole. */
function parseAnswer(buf: Buffer): (FuzzAnswer & { complete: boolean }) | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let body = buf.subarray(end + 4);
  let complete = false;
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    complete = body.length >= n;
    body = body.subarray(0, n);
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const nl = body.indexOf('\r\n', at);
      if (nl < 0) break;
      const size = parseInt(body.subarray(at, nl).toString('latin1'), 16);
      if (!Number.isFinite(size)) break;
      if (size === 0) {
        complete = true;
        break;
      }
      parts.push(body.subarray(nl + 2, nl + 2 + size));
      at = nl + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(statusLine.split(' ')[1]) || 0, headers, body, complete };
}

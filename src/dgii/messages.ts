// Every shape DGII's error bodies come in, read into one message list (research/dgii-protocol.md §2): a bare JSON
// string (validarsemilla's "no está delegado"), `{mensaje}` (often with `error`), `{mensajes: [{valor, codigo}]}` or
// `{mensajes: [strings]}` (anularrango), `{mensaje: [strings]}` (aprobacioncomercial), ASP.NET's ModelState
// `{title, errors: {field: [...]}}`, XML answers (when Accept asks for XML), and plain text from IIS.
import { XMLParser } from 'fast-xml-parser';
import { screenUntrustedXml } from '../fiscal/xml/screen-untrusted-xml.js';
import type { DgiiMessage } from './outcomes.js';

/** Long enough for any DGII message; an HTML error page is cut rather than carried around. */
const maxMessageLength = 1_000;

// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern must find
const controlCharacters = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A text of DGII's as we keep it: trimmed, without control characters (but tab and line ends) and with any lone
 * surrogate replaced. An answer is read from the network: a NUL in it, or a lone surrogate in a jsonb, would make
 * PostgreSQL refuse the statement recording it, and with it every document recorded in the same statement.
 */
export function storableText(text: string): string {
  return text.replace(controlCharacters, '').replace(loneSurrogate, '\uFFFD').trim();
}

function clip(text: string): string {
  const kept = storableText(text);
  return kept.length > maxMessageLength ? `${kept.slice(0, maxMessageLength)}…` : kept;
}

function codeText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const text = typeof value === 'string' ? storableText(value) : '';
  return text === '' ? null : text;
}

function message(valor: string, codigo: string | null = null): DgiiMessage {
  return { codigo, valor: clip(valor) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value that holds messages: a string, an array of strings or `{valor, codigo}` objects, or one such object. */
function messagesIn(value: unknown): DgiiMessage[] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [message(value)];
  if (Array.isArray(value)) return value.flatMap(messagesIn);
  if (isRecord(value)) {
    const valor = value['valor'] ?? value['Valor'] ?? value['mensaje'] ?? value['message'];
    const codigo = codeText(value['codigo'] ?? value['Codigo'] ?? value['code']);
    // DGII has sent codes with empty text (code 64 in certification; research §2): keep the code.
    if (typeof valor === 'string') return valor.trim() === '' && codigo === null ? [] : [message(valor, codigo)];
    if (codigo !== null) return [message('', codigo)];
    // An XML list wraps each entry in an element of its own (<mensajes><Mensaje>…</Mensaje></mensajes>).
    return Object.values(value).flatMap(messagesIn);
  }
  return [];
}

/** Keys looked up case-insensitively, as .NET serializers vary the case. */
function field(record: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

function fromObject(record: Record<string, unknown>): DgiiMessage[] {
  const found = [...messagesIn(field(record, 'mensajes')), ...messagesIn(field(record, 'mensaje'))];
  if (found.length > 0) return found;
  const errors = field(record, 'errors');
  if (isRecord(errors)) {
    // ASP.NET ModelState: the field name says what was wrong, so it stays in the text.
    const listed = Object.entries(errors).flatMap(([name, value]) =>
      messagesIn(value).map((entry) => message(name === '' ? entry.valor : `${name}: ${entry.valor}`, entry.codigo)),
    );
    if (listed.length > 0) return listed;
  }
  if (Array.isArray(errors)) {
    const listed = messagesIn(errors);
    if (listed.length > 0) return listed;
  }
  for (const name of ['error', 'detail', 'title', 'message']) {
    const value = field(record, name);
    if (typeof value === 'string' && value.trim() !== '') return [message(value)];
  }
  return [];
}

export function messagesFromJson(value: unknown): DgiiMessage[] {
  if (typeof value === 'string' || Array.isArray(value)) return messagesIn(value);
  if (isRecord(value)) return fromObject(value);
  return [];
}

const xmlParser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: true,
  trimValues: true,
  removeNSPrefix: true,
});

/** XML answers put the same fields under a root element (RespuestaAnulacionRango, …); a list repeats its element. */
function messagesFromXml(text: string): DgiiMessage[] | undefined {
  // An answer from the network is screened like any XML from outside: no DTD (so no entity to expand), no shape
  // that makes the parser quadratic; one that fails is read as text below.
  if (!screenUntrustedXml(text).ok) return undefined;
  let document: unknown;
  try {
    document = xmlParser.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(document)) return undefined;
  const roots = Object.entries(document).filter(([key]) => !key.startsWith('?'));
  const found: DgiiMessage[] = [];
  for (const [, root] of roots) {
    if (isRecord(root)) found.push(...fromObject(root));
    else found.push(...messagesIn(root));
  }
  return found;
}

/** DGII's messages in a response body of any shape; an empty list when it says nothing. */
export function parseDgiiMessages(body: Buffer | string, contentType?: string): DgiiMessage[] {
  const text = (typeof body === 'string' ? body : body.toString('utf8')).replace(/^\uFEFF/, '').trim();
  if (text === '') return [];
  const first = text[0];
  if (first === '{' || first === '[' || first === '"') {
    try {
      return messagesFromJson(JSON.parse(text) as unknown);
    } catch {
      // Not JSON after all: read as text below.
    }
  }
  if (first === '<' && !/html/i.test(contentType ?? '') && !/^<!doctype html|^<html/i.test(text)) {
    const fromXml = messagesFromXml(text);
    if (fromXml !== undefined) return fromXml;
  }
  // IIS and gateways answer plain text or an HTML page: its text, without markup, is the message.
  const plain =
    first === '<'
      ? text
          .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
      : text;
  return plain.trim() === '' ? [] : [message(plain)];
}

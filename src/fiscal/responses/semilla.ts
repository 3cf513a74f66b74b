// SemillaModel, DGII's authentication seed (XSD Semilla v.1.0; research/dgii-protocol.md §3): `valor`, an opaque
// string, and `fecha`, an xs:dateTime, then one required wildcard element where the signer's Signature goes.
// parseSemilla reads a seed from outside (DGII's, or a signed one sent back); buildSemilla writes one, so that an
// emulator of DGII can issue seeds. Sign a built seed with the general signer (signXml) or signCanonicalDocument.
import { XMLParser } from 'fast-xml-parser';
import { error, type Finding } from '../finding.js';
import { decodeXmlText } from '../parse/index.js';
import { screenFindingCode, screenUntrustedXml } from '../xml/screen-untrusted-xml.js';
import { parseGeneralXml } from '../xml/general-xml.js';
import { isXmlText, leaf, writeXmlDocument } from '../xml/xml-writer.js';
import { dotNetNamespaces } from './xml-namespaces.js';

export interface Semilla {
  valor: string;
  /** xs:dateTime as DGII writes it, e.g. `2022-12-06T10:50:14.9682218-04:00`. */
  fecha: string;
}

export type SemillaResult = { ok: true; value: Semilla } | { ok: false; findings: Finding[] };

// xs:dateTime (XSD 1.0 §3.2.7): year, month, day, time with optional fraction, optional zone.
const dateTime = /^-?(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|([+-])(\d{2}):(\d{2}))?$/;

export function isXsdDateTime(value: string): boolean {
  const match = dateTime.exec(value);
  if (match === null) return false;
  const [month, day, hour, minute, second] = [match[2], match[3], match[4], match[5], match[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const zoneHour = match[8] === undefined ? 0 : Number(match[8]);
  const zoneMinute = match[9] === undefined ? 0 : Number(match[9]);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= 31 &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    zoneHour <= 14 &&
    zoneMinute <= 59
  );
}

function check(seed: Semilla): Finding[] {
  const findings: Finding[] = [];
  if (seed.valor.trim() === '' || !isXmlText(seed.valor))
    findings.push(error('/SemillaModel/valor', 'missing', 'valor is a non-empty string of XML characters.'));
  if (!isXsdDateTime(seed.fecha))
    findings.push(
      error('/SemillaModel/fecha', 'date_format', 'fecha is an xs:dateTime such as 2022-12-06T10:50:14.9682218-04:00.'),
    );
  return findings;
}

/** The seed, unsigned, with the xsi/xsd declarations DGII's .NET serializer writes (in C14N order). */
export function buildSemilla(seed: Semilla): { ok: true; xml: string } | { ok: false; findings: Finding[] } {
  const findings = check(seed);
  if (findings.length > 0) return { ok: false, findings };
  return {
    ok: true,
    xml: writeXmlDocument({
      name: 'SemillaModel',
      namespaces: dotNetNamespaces,
      content: [leaf('valor', seed.valor), leaf('fecha', seed.fecha)],
    }),
  };
}

// As in parseEcf: no entity of the sender's is ever expanded (DOCTYPE refused by the screen, entities decoded here).
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: false,
  trimValues: false,
  cdataPropName: '#cdata',
  isArray: () => true,
});

type Node = Readonly<Record<string, unknown>>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(pointer: string, code: string, message: string): SemillaResult {
  return { ok: false, findings: [error(pointer, code, message)] };
}

/** A seed from outside: screened (size, encoding, no DOCTYPE), well-formed, SemillaModel with one valor and one fecha. */
export function parseSemilla(input: string | Uint8Array): SemillaResult {
  const screened = screenUntrustedXml(input);
  if (!screened.ok) return refuse('/', screenFindingCode(screened.problem), screened.message);
  const general = parseGeneralXml(parser, screened.text);
  if (!general.ok) return refuse('/', 'malformed_xml', general.message);
  const document = general.document;
  const roots = Object.keys(document).filter((key) => key !== '?xml' && key !== '#text');
  const rootList = document['SemillaModel'];
  if (roots.length !== 1 || !Array.isArray(rootList) || rootList.length !== 1 || !isNode(rootList[0])) {
    return refuse('/', 'not_a_seed', 'the root element must be SemillaModel');
  }
  const root = rootList[0];
  const findings: Finding[] = [];
  const read = (name: 'valor' | 'fecha'): string => {
    const list = root[name];
    const node: unknown = Array.isArray(list) && list.length === 1 ? list[0] : undefined;
    const raw = typeof node === 'string' ? node : isNode(node) && Object.keys(node).length === 0 ? '' : undefined;
    const text = raw === undefined ? undefined : decodeXmlText(raw);
    if (text === undefined || text.trim() === '') {
      findings.push(
        error(`/SemillaModel/${name}`, 'missing', `SemillaModel has exactly one ${name}, holding text only.`),
      );
      return '';
    }
    return text;
  };
  const seed = { valor: read('valor'), fecha: read('fecha') };
  for (const key of Object.keys(root)) {
    if (key === 'valor' || key === 'fecha' || key === 'Signature') continue;
    if (key === '#text' && [root[key]].flat().every((text) => typeof text === 'string' && text.trim() === '')) continue;
    findings.push(
      error(
        `/SemillaModel/${key}`,
        'unexpected_element',
        `SemillaModel holds valor, fecha and a Signature only; not ${key}.`,
      ),
    );
  }
  // A value found but not of its type (an empty one is already reported as missing).
  findings.push(...check(seed).filter((finding) => !findings.some((found) => found.pointer === finding.pointer)));
  return findings.length > 0 ? { ok: false, findings } : { ok: true, value: seed };
}

// Reads one of DGII's e-CF XSDs into its element tree (names, occurrences, type names, nested sequences) and
// its named simple types with their facets (scripts/generate-ecf-model.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { EcfType } from '../src/fiscal/model/ecf-model-types.js';
import type { XsdSimpleType } from './ecf-model-xsd-types.js';

type XmlNode = Record<string, unknown>;

export interface RawElement {
  name: string;
  minOccurs: number;
  maxOccurs: number;
  typeName?: string;
  children?: RawElement[];
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  commentPropName: '#comment',
  parseTagValue: false,
  parseAttributeValue: false,
});

function tagOf(node: XmlNode): string | undefined {
  return Object.keys(node).find((key) => key !== ':@');
}
function childrenOf(node: XmlNode): XmlNode[] {
  const tag = tagOf(node);
  const value = tag === undefined ? undefined : node[tag];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}
function attr(node: XmlNode, name: string): string | undefined {
  const attrs = node[':@'] as Record<string, string> | undefined;
  return attrs?.[`@_${name}`]?.trim();
}
function find(nodes: XmlNode[], tag: string): XmlNode | undefined {
  return nodes.find((n) => tagOf(n) === tag);
}

function readElement(node: XmlNode): RawElement {
  const name = attr(node, 'name') ?? '';
  const maxOccurs = attr(node, 'maxOccurs') ?? '1';
  const element: RawElement = {
    name,
    minOccurs: Number(attr(node, 'minOccurs') ?? '1'),
    maxOccurs: maxOccurs === 'unbounded' ? Number.MAX_SAFE_INTEGER : Number(maxOccurs),
  };
  const typeName = attr(node, 'type');
  if (typeName !== undefined) return { ...element, typeName };
  const complex = find(childrenOf(node), 'xs:complexType');
  const sequence = complex === undefined ? undefined : find(childrenOf(complex), 'xs:sequence');
  if (sequence === undefined) throw new Error(`element ${name} has neither a type nor a sequence`);
  const children = childrenOf(sequence)
    .filter((n) => tagOf(n) === 'xs:element')
    .map(readElement);
  return { ...element, children };
}

function readSimpleType(node: XmlNode): XsdSimpleType {
  const restriction = find(childrenOf(node), 'xs:restriction');
  if (restriction === undefined) throw new Error(`simpleType ${attr(node, 'name') ?? ''} without restriction`);
  const facets: XsdSimpleType['facets'] = [];
  let pendingValue: string | undefined;
  for (const child of childrenOf(restriction)) {
    const tag = tagOf(child);
    if (tag === '#comment') {
      // DGII writes each enumeration's label as a comment right after it.
      const text = childrenOf(child)
        .map((t) => (typeof t['#text'] === 'string' ? t['#text'] : ''))
        .join('')
        .trim();
      const last = facets.at(-1);
      if (last?.facet === 'enumeration' && pendingValue === last.value && last.label === undefined) last.label = text;
      continue;
    }
    if (tag === undefined || !tag.startsWith('xs:')) continue;
    const value = attr(child, 'value') ?? '';
    facets.push({ facet: tag.slice(3), value });
    pendingValue = value;
  }
  return { name: attr(node, 'name') ?? '', base: attr(restriction, 'base') ?? '', facets };
}

export function readXsd(
  dgiiDir: string,
  type: EcfType,
): { root: RawElement[]; simpleTypes: Map<string, XsdSimpleType> } {
  const tree = parser.parse(readFileSync(join(dgiiDir, 'xsd', `e-CF-${type}.xsd`), 'utf8')) as XmlNode[];
  const schema = find(tree, 'xs:schema');
  if (schema === undefined) throw new Error(`e-CF-${type}.xsd: no schema`);
  const simpleTypes = new Map<string, XsdSimpleType>();
  for (const node of childrenOf(schema)) {
    // e-CF-31.xsd declares " IndicadorServicioTodoIncluidoType" with a leading space (dgii/README.md, defect 1).
    if (tagOf(node) === 'xs:simpleType') simpleTypes.set(attr(node, 'name') ?? '', readSimpleType(node));
  }
  const ecf = find(childrenOf(schema), 'xs:element');
  if (ecf === undefined) throw new Error(`e-CF-${type}.xsd: no root element`);
  return { root: readElement(ecf).children ?? [], simpleTypes };
}

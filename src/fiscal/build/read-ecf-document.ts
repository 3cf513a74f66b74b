// Walks a client's DGII-shaped JSON along the model of its type, in XSD order, once: every finding the structure
// allows us to make (unknown keys, wrong shapes, data types, catalogues, obligations), the document read into
// exact XML text, and that document written as canonical XML (the writer's contract, xml-writer.ts). Cross-field
// fiscal rules and totals live elsewhere (fiscal/rules, fiscal/totals).
//
// This runs for every element of every line of every document we issue, so the model is compiled once per type
// (tags, leaf readers, what is mandatory) and the walk allocates only what it returns: pointers are made when a
// finding needs one, and "is this group empty?" is asked only of a group that yielded nothing.
import { error } from '../finding.js';
import type { Finding } from '../finding.js';
import type { EcfElement, EcfType } from '../model/ecf-model-types.js';
import { dataTypeOf, ecfModel, serviceOwnedPaths } from '../model/ecf-model.js';
import { obligations } from '../model/generated/obligations.js';
import { escapeText } from '../xml/xml-writer.js';
import type { EcfObject, EcfValue, ServiceOwnedFields } from './ecf-json.js';
import { leafReader, type LeafReader } from './leaf-value.js';

export interface ReadDocument {
  /** The values as written (empty unless asked for). */
  document: EcfObject;
  /** The children of the root `ECF`, canonical; complete only when the service-owned fields were given. */
  xml: string;
  findings: Finding[];
}

interface CompiledElement {
  readonly element: EcfElement;
  readonly open: string;
  readonly close: string;
  /** Formato e-CF obligation 1, or an XSD minOccurs ≥ 1. */
  readonly required: boolean;
  readonly owned: boolean;
  readonly leaf: LeafReader | undefined;
  /** Text may hold `&`, `<`, `>` or CR; numbers, dates and codes never do. */
  readonly escaped: boolean;
  /** For catalogue codes, the element as written, by code: a few codes recur on every line, and a ready string
   * spares the concatenations (and their flattening before the digest). */
  readonly writtenCodes: Map<string, string> | undefined;
  readonly children: CompiledGroup | undefined;
}

interface CompiledGroup {
  /** The model path of the group ('' for the root), for telling another type's element from an unknown one. */
  readonly path: string;
  readonly elements: readonly CompiledElement[];
  /** Position in `elements` by element name. */
  readonly positions: ReadonlyMap<string, number>;
  /** Positions of the elements visited even when not sent (mandatory or service-owned), ascending. */
  readonly alwaysVisited: readonly number[];
  /** A cache of the keys of the last object read for this group, by their order there, with their positions: the
   * lines of a document (and the documents of an integrator) send the same keys in the same order, and comparing a
   * key with the one seen before costs less than looking it up. */
  readonly recentKeys: string[];
  readonly recentPositions: number[];
}

function compileGroup(path: string, model: readonly EcfElement[]): CompiledGroup {
  const elements = model.map((element): CompiledElement => {
    const dataType = dataTypeOf(element);
    if (element.children === undefined && dataType === undefined)
      throw new Error(`model: ${element.path} has no data type`);
    return {
      element,
      open: flat('<', element.name, '>'),
      close: flat('</', element.name, '>'),
      required: element.obligation === 1 || element.minOccurs >= 1,
      owned: serviceOwnedPaths.has(element.path),
      leaf: dataType === undefined ? undefined : leafReader(dataType),
      escaped: dataType?.kind === 'text' || dataType?.kind === 'enumeration',
      writtenCodes: dataType?.kind === 'enumeration' ? new Map() : undefined,
      children: element.children === undefined ? undefined : compileGroup(element.path, element.children),
    };
  });
  return {
    path,
    elements,
    positions: new Map(model.map((element, position) => [element.name, position])),
    alwaysVisited: elements.flatMap((compiled, position) => (compiled.required || compiled.owned ? [position] : [])),
    recentKeys: [],
    recentPositions: [],
  };
}

/**
 * The parts joined into one flat string. `+` and template literals make a rope (a V8 cons string) of anything 13
 * characters or longer, and a string kept for reuse, such as a tag, would then be walked piece by piece again each
 * time a document holding it is flattened for hashing; join() copies the characters once.
 */
function flat(...parts: string[]): string {
  return parts.join('');
}

const compiledTypes = new Map<EcfType, CompiledGroup>();

function compiledModel(type: EcfType): CompiledGroup {
  let group = compiledTypes.get(type);
  if (group === undefined) {
    group = compileGroup('', ecfModel(type).children);
    compiledTypes.set(type, group);
  }
  return group;
}

type Json = Readonly<Record<string, unknown>>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Empty values stand for "not sent": the element is omitted, never written empty. A group or list holding only
 * empty values is empty too (a spreadsheet row's unused columns arrive like that). */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.every(isEmpty);
  if (isPlainObject(value)) return Object.values(value).every(isEmpty);
  return false;
}

/** Where a group is in the request (undefined: the root). Turned into a JSON pointer only when a finding needs
 * one: a pointer string made for every line would cost a tenth of a build. */
class Place {
  constructor(
    private readonly parent: Place | undefined,
    private readonly name: string,
    private readonly index: number | undefined,
  ) {}

  pointer(): string {
    return pointerTo(this.parent, this.name, this.index);
  }
}

/** The JSON pointer of an element (or of entry `index` of a list) in the group at `parent`. Model names need no
 * escaping. */
function pointerTo(parent: Place | undefined, name: string, index?: number): string {
  const group = parent === undefined ? '' : parent.pointer();
  return index === undefined ? `${group}/${name}` : `${group}/${name}/${String(index)}`;
}

/** A JSON pointer segment for a key the client chose. */
function segment(key: string): string {
  return `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function ownedValue(path: string, owned: ServiceOwnedFields): string | undefined {
  if (path === 'Encabezado/IdDoc/eNCF') return owned.eNCF;
  if (path === 'Encabezado/IdDoc/FechaVencimientoSecuencia') return owned.fechaVencimientoSecuencia;
  if (path === 'FechaHoraFirma') return owned.fechaHoraFirma;
  return undefined;
}

class DocumentReader {
  readonly findings: Finding[] = [];
  /** The value of the occurrence the last read*() call wrote (a group's only when collecting); its XML is what the
   * call returned. Kept here rather than returned in a pair, since one pair per leaf would be most of what a large
   * document allocates. (Strings joined by + measure faster here than pieces pushed to an array and joined once.) */
  private value: EcfValue = '';

  constructor(
    private readonly type: EcfType,
    private readonly owned: ServiceOwnedFields | undefined,
    /** Whether to keep the document's values as well as its XML (storing them costs a tenth of a build). */
    private readonly collect: boolean,
  ) {}

  /** The group's children read and written ('' when none could be). `at` is where the group is. */
  readGroup(group: CompiledGroup, json: Json, at: Place | undefined): string {
    const start = this.findings.length;
    // An object per group (one per line) only when the values are kept.
    const value: Record<string, EcfValue> | undefined = this.collect ? {} : undefined;
    let xml = '';

    // The keys sent, by their position in the model: a handful out of dozens of elements, and looking each
    // element up by name instead costs more than the rest of the walk. Keys almost always come in XSD order.
    const sent: number[] = [];
    const raws: unknown[] = [];
    let unknown = false;
    let ordered = true;
    let order = 0;
    for (const key in json) {
      let position = group.recentKeys[order] === key ? group.recentPositions[order] : undefined;
      if (position === undefined) {
        position = group.positions.get(key);
        if (position === undefined) {
          unknown = true;
          continue;
        }
        group.recentKeys[order] = key;
        group.recentPositions[order] = position;
      }
      order++;
      const raw = json[key];
      if (raw === undefined) continue;
      if (sent.length > 0 && position < (sent[sent.length - 1] as number)) ordered = false;
      sent.push(position);
      raws.push(raw);
    }
    if (ordered) {
      // Merge what was sent with what must be visited anyway (to be reported missing, or set by the service).
      const always = group.alwaysVisited;
      let s = 0;
      let a = 0;
      while (s < sent.length || a < always.length) {
        const next = s < sent.length ? (sent[s] as number) : Number.POSITIVE_INFINITY;
        const must = a < always.length ? (always[a] as number) : Number.POSITIVE_INFINITY;
        const compiled = group.elements[must < next ? must : next] as CompiledElement;
        const written = this.readElement(compiled, must < next ? undefined : raws[s], at);
        if (must <= next) a++;
        if (must >= next) s++;
        if (written === '') continue;
        xml += written;
        if (value !== undefined) value[compiled.element.name] = this.value;
      }
    } else {
      for (const compiled of group.elements) {
        const written = this.readElement(compiled, json[compiled.element.name], at);
        if (written === '') continue;
        xml += written;
        if (value !== undefined) value[compiled.element.name] = this.value;
      }
    }
    if (unknown) this.findings.splice(start, 0, ...this.unknownKeys(group, json, at));
    this.value = value ?? '';
    return xml;
  }

  private unknownKeys(group: CompiledGroup, json: Json, at: Place | undefined): Finding[] {
    const findings: Finding[] = [];
    for (const key of Object.keys(json)) {
      if (group.positions.has(key)) continue;
      const path = group.path === '' ? key : `${group.path}/${key}`;
      // An element of another type's XSD is "not applicable" here (obligation 0) unless it is empty (not sent);
      // anything else is unknown, even empty, since it is most likely a misspelt name.
      if (Object.hasOwn(obligations, path)) {
        if (!isEmpty(json[key]))
          findings.push(
            error(
              (at === undefined ? '' : at.pointer()) + segment(key),
              'not_applicable',
              `${key} does not apply to e-CF ${this.type}`,
            ),
          );
      } else {
        findings.push(
          error(
            (at === undefined ? '' : at.pointer()) + segment(key),
            'unknown_element',
            `${key} is not an element of e-CF ${this.type} here`,
          ),
        );
      }
    }
    return findings;
  }

  /** One element of a group, as XML ('' when nothing is written). `parent` is where the group is. */
  private readElement(compiled: CompiledElement, raw: unknown, parent: Place | undefined): string {
    if (compiled.owned) return this.readOwned(compiled, raw, parent);
    if (raw === undefined || raw === null || raw === '') {
      this.checkMissing(compiled, parent);
      return '';
    }
    if (compiled.element.repeated) return this.readRepeated(compiled, raw, parent);
    const start = this.findings.length;
    if (!Array.isArray(raw)) {
      const written = this.readOne(compiled, raw, parent, undefined);
      if (written !== '') return written;
    } else if (!isEmpty(raw)) {
      this.findings.push(
        error(
          pointerTo(parent, compiled.element.name),
          'wrong_type',
          `${compiled.element.name} occurs once: expected a single value, not an array`,
        ),
      );
    }
    // Nothing written: an empty group or list was not sent at all; a group whose values were all refused was.
    if (isEmpty(raw)) this.findings.length = start;
    if (this.findings.length === start) this.checkMissing(compiled, parent);
    return '';
  }

  private readRepeated(compiled: CompiledElement, raw: unknown, parent: Place | undefined): string {
    const { element } = compiled;
    if (!Array.isArray(raw)) {
      if (isEmpty(raw)) this.checkMissing(compiled, parent);
      else
        this.findings.push(
          error(pointerTo(parent, element.name), 'wrong_type', `${element.name} repeats: expected an array`),
        );
      return '';
    }
    const start = this.findings.length;
    if (raw.length > element.maxOccurs)
      this.findings.push(
        error(
          pointerTo(parent, element.name),
          'too_many',
          `${element.name} occurs at most ${String(element.maxOccurs)} times`,
        ),
      );
    const values: EcfValue[] = [];
    let xml = '';
    for (let index = 0; index < raw.length; index++) {
      const entry: unknown = raw[index];
      const entryStart = this.findings.length;
      const written =
        entry === undefined || entry === null || entry === '' ? '' : this.readOne(compiled, entry, parent, index);
      if (written !== '') {
        xml += written;
        if (this.collect) values.push(this.value);
      } else if (isEmpty(entry)) {
        this.findings.length = entryStart;
        this.findings.push(
          error(pointerTo(parent, element.name, index), 'empty_entry', `an empty ${element.name} cannot be written`),
        );
      }
    }
    if (xml !== '') {
      this.value = compiled.children === undefined ? (values as string[]) : (values as EcfObject[]);
      return xml;
    }
    // A list of nothing but empty entries was not sent.
    if (isEmpty(raw)) {
      this.findings.length = start;
      this.checkMissing(compiled, parent);
    }
    return '';
  }

  /** One occurrence of an element: the only one, or entry `index` of a list. */
  private readOne(
    compiled: CompiledElement,
    raw: unknown,
    parent: Place | undefined,
    index: number | undefined,
  ): string {
    const { element } = compiled;
    if (compiled.children !== undefined) {
      if (!isPlainObject(raw)) {
        this.findings.push(
          error(
            pointerTo(parent, compiled.element.name, index),
            'wrong_type',
            `${element.name} is a group: expected an object`,
          ),
        );
        return '';
      }
      const xml = this.readGroup(compiled.children, raw, new Place(parent, element.name, index));
      return xml === '' ? '' : compiled.open + xml + compiled.close;
    }
    const text = (compiled.leaf as LeafReader)(raw);
    if (typeof text !== 'string') {
      this.findings.push(
        error(pointerTo(parent, compiled.element.name, index), text.code, `${element.name}: ${text.message}`),
      );
      return '';
    }
    this.value = text;
    if (compiled.writtenCodes === undefined)
      return compiled.open + (compiled.escaped ? escapeText(text) : text) + compiled.close;
    let written = compiled.writtenCodes.get(text);
    if (written === undefined) {
      written = flat(compiled.open, escapeText(text), compiled.close);
      compiled.writtenCodes.set(text, written);
    }
    return written;
  }

  private readOwned(compiled: CompiledElement, raw: unknown, parent: Place | undefined): string {
    const { element } = compiled;
    const at = pointerTo(parent, compiled.element.name);
    if (!isEmpty(raw))
      this.findings.push(error(at, 'service_owned', `${element.name} is set by the service, not by the client`));
    if (this.owned === undefined) return '';
    const value = ownedValue(element.path, this.owned);
    if (value === undefined) {
      if (element.minOccurs >= 1)
        this.findings.push(error(at, 'missing_owned_field', `${element.name} must be given by the service`));
      return '';
    }
    const text = compiled.leaf?.(value);
    // An e-NCF is E + the type + 10 digits (Formato e-CF field 3): one of another type cannot be used here.
    const wrongType = element.name === 'eNCF' && value.slice(1, 3) !== this.type;
    if (typeof text !== 'string' || wrongType) {
      this.findings.push(
        error(at, 'invalid_owned_field', `${element.name} given by the service is not valid for e-CF ${this.type}`),
      );
      return '';
    }
    this.value = text;
    return compiled.open + escapeText(text) + compiled.close;
  }

  /** The values of the last group read (the whole document once readGroup returned for the root). */
  collected(): EcfObject {
    return this.collect ? (this.value as EcfObject) : {};
  }

  private checkMissing(compiled: CompiledElement, parent: Place | undefined): void {
    if (compiled.required) {
      this.findings.push(
        error(
          pointerTo(parent, compiled.element.name),
          'missing',
          `${compiled.element.name} is mandatory in e-CF ${this.type}`,
        ),
      );
    }
  }
}

export interface ReadOptions {
  /** The values the service sets; without them the XML lacks them and only the findings are of use. */
  owned?: ServiceOwnedFields;
  /** Keep the values read, not only their XML. */
  collect?: boolean;
}

export function readEcfDocument(type: EcfType, json: unknown, options: ReadOptions = {}): ReadDocument {
  if (!isPlainObject(json))
    return { document: {}, xml: '', findings: [error('', 'wrong_type', 'the document must be a JSON object')] };
  const reader = new DocumentReader(type, options.owned, options.collect ?? false);
  const xml = reader.readGroup(compiledModel(type), json, undefined);
  return { document: reader.collected(), xml, findings: reader.findings };
}

// Walks a client's DGII-shaped JSON along the model of its type, in XSD order: every finding the structure
// allows us to make (unknown keys, wrong shapes, data types, catalogues, obligations) and the document read into
// exact XML text. Cross-field fiscal rules and totals live elsewhere (fiscal/rules, fiscal/totals).
import { error } from '../finding.js';
import type { Finding } from '../finding.js';
import type { EcfElement, EcfType } from '../model/ecf-model-types.js';
import { dataTypeOf, ecfModel, serviceOwnedPaths } from '../model/ecf-model.js';
import { obligations } from '../model/generated/obligations.js';
import type { EcfObject, EcfValue, ServiceOwnedFields } from './ecf-json.js';
import { readLeaf } from './leaf-value.js';

export interface ReadDocument {
  document: EcfObject;
  findings: Finding[];
}

type Path = readonly (string | number)[];

function pointerOf(path: Path): string {
  return `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
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

function ownedValue(path: string, owned: ServiceOwnedFields): string | undefined {
  if (path === 'Encabezado/IdDoc/eNCF') return owned.eNCF;
  if (path === 'Encabezado/IdDoc/FechaVencimientoSecuencia') return owned.fechaVencimientoSecuencia;
  if (path === 'FechaHoraFirma') return owned.fechaHoraFirma;
  return undefined;
}

// The model is immutable: the names of a group's children are worked out once, not once per line.
const childNames = new WeakMap<readonly EcfElement[], ReadonlySet<string>>();
function namesOf(elements: readonly EcfElement[]): ReadonlySet<string> {
  let names = childNames.get(elements);
  if (names === undefined) {
    names = new Set(elements.map((element) => element.name));
    childNames.set(elements, names);
  }
  return names;
}

class DocumentReader {
  readonly findings: Finding[] = [];
  constructor(
    private readonly type: EcfType,
    private readonly owned: ServiceOwnedFields | undefined,
  ) {}

  readContainer(elements: readonly EcfElement[], json: Readonly<Record<string, unknown>>, at: Path, modelPath: string): EcfObject {
    const known = namesOf(elements);
    for (const key of Object.keys(json)) {
      if (known.has(key)) continue;
      const path = modelPath === '' ? key : `${modelPath}/${key}`;
      // An element of another type's XSD is "not applicable" here (obligation 0) unless it is empty (not sent);
      // anything else is unknown, even empty, since it is most likely a misspelt name.
      if (Object.hasOwn(obligations, path)) {
        if (!isEmpty(json[key])) this.findings.push(error(pointerOf([...at, key]), 'not_applicable', `${key} does not apply to e-CF ${this.type}`));
      } else {
        this.findings.push(error(pointerOf([...at, key]), 'unknown_element', `${key} is not an element of e-CF ${this.type} here`));
      }
    }
    const out: Record<string, EcfValue> = {};
    for (const element of elements) {
      const value = this.readElement(element, json[element.name], [...at, element.name]);
      if (value !== undefined) out[element.name] = value;
    }
    return out;
  }

  private readElement(element: EcfElement, raw: unknown, at: Path): EcfValue | undefined {
    if (serviceOwnedPaths.has(element.path)) return this.readOwned(element, raw, at);
    if (isEmpty(raw)) {
      this.checkMissing(element, at);
      return undefined;
    }
    if (element.repeated) return this.readRepeated(element, raw, at);
    if (Array.isArray(raw)) {
      this.findings.push(error(pointerOf(at), 'wrong_type', `${element.name} occurs once: expected a single value, not an array`));
      return undefined;
    }
    const before = this.findings.length;
    const value = this.readOne(element, raw, at);
    // A group that held nothing writable is as good as absent.
    if (value === undefined && this.findings.length === before) this.checkMissing(element, at);
    return value;
  }

  private readRepeated(element: EcfElement, raw: unknown, at: Path): EcfValue | undefined {
    if (!Array.isArray(raw)) {
      this.findings.push(error(pointerOf(at), 'wrong_type', `${element.name} repeats: expected an array`));
      return undefined;
    }
    if (raw.length > element.maxOccurs) this.findings.push(error(pointerOf(at), 'too_many', `${element.name} occurs at most ${element.maxOccurs} times`));
    const values: EcfValue[] = [];
    raw.forEach((entry: unknown, index) => {
      if (isEmpty(entry)) {
        this.findings.push(error(pointerOf([...at, index]), 'empty_entry', `an empty ${element.name} cannot be written`));
        return;
      }
      const value = this.readOne(element, entry, [...at, index]);
      if (value !== undefined) values.push(value);
    });
    if (values.length === 0) return undefined;
    return element.children === undefined ? (values as string[]) : (values as EcfObject[]);
  }

  private readOne(element: EcfElement, raw: unknown, at: Path): EcfValue | undefined {
    if (element.children !== undefined) {
      if (!isPlainObject(raw)) {
        this.findings.push(error(pointerOf(at), 'wrong_type', `${element.name} is a group: expected an object`));
        return undefined;
      }
      const value = this.readContainer(element.children, raw, at, element.path);
      return Object.keys(value).length === 0 ? undefined : value;
    }
    const dataType = dataTypeOf(element);
    if (dataType === undefined) throw new Error(`model: ${element.path} has no data type`);
    const result = readLeaf(dataType, raw);
    if (!result.ok) {
      this.findings.push(error(pointerOf(at), result.code, `${element.name}: ${result.message}`));
      return undefined;
    }
    return result.value;
  }

  private readOwned(element: EcfElement, raw: unknown, at: Path): EcfValue | undefined {
    if (!isEmpty(raw)) this.findings.push(error(pointerOf(at), 'service_owned', `${element.name} is set by the service, not by the client`));
    if (this.owned === undefined) return undefined;
    const value = ownedValue(element.path, this.owned);
    if (value === undefined) {
      if (element.minOccurs >= 1) this.findings.push(error(pointerOf(at), 'missing_owned_field', `${element.name} must be given by the service`));
      return undefined;
    }
    const dataType = dataTypeOf(element);
    const result = dataType === undefined ? undefined : readLeaf(dataType, value);
    // An e-NCF is E + the type + 10 digits (Formato e-CF field 3): one of another type cannot be used here.
    const wrongType = element.name === 'eNCF' && value.slice(1, 3) !== this.type;
    if (result?.ok !== true || wrongType) {
      this.findings.push(error(pointerOf(at), 'invalid_owned_field', `${element.name} given by the service is not valid for e-CF ${this.type}`));
      return undefined;
    }
    return result.value;
  }

  /** Formato e-CF obligation 1, or an XSD minOccurs ≥ 1, inside a group that is present. */
  private checkMissing(element: EcfElement, at: Path): void {
    if (element.obligation === 1 || element.minOccurs >= 1) {
      this.findings.push(error(pointerOf(at), 'missing', `${element.name} is mandatory in e-CF ${this.type}`));
    }
  }
}

export function readEcfDocument(type: EcfType, json: unknown, owned?: ServiceOwnedFields): ReadDocument {
  const reader = new DocumentReader(type, owned);
  if (!isPlainObject(json)) return { document: {}, findings: [error('', 'wrong_type', 'the document must be a JSON object')] };
  const document = reader.readContainer(ecfModel(type).children, json, [], '');
  return { document, findings: reader.findings };
}

// A certification set file as a whole (SPEC §2.3: `{label, cases}`): unique keys, every RFCE case paired with its
// type-32 ECF case under DOP 250,000 (and each such 32 with its RFCE), each derived RFCE equal to its case, every
// ECF case checked verbatim (set-check.ts), and the ACECF cases — the file's, or derived from the ECF cases when it
// has none (research/certification.md §2, "ACECF workbook": DGII's step-3 workbook mirrors the set).
import { error, type Finding } from '../finding.js';
import { buildAcecf } from '../responses/acecf.js';
import { textAt } from '../rules/document-view.js';
import { checkEcfCase, depthOf, isRfceRouted, leavesOf } from './set-check.js';
import type { Json, SetCase } from './set-rows.js';
import { rfcePayloadOf } from './rfce-payload.js';

/** A finding of one case: `pointer` points into its payload, except `/caseKey` and '' (the case as a whole). */
export interface CaseFinding extends Finding {
  /** The case's position in the file and its key. */
  readonly index: number;
  readonly caseKey: string;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const maxPayloadDepth = 16;

/** The types DGII's ACECF workbook has rows for (research §2: the set's 31, 33, 34, 44 and 45). */
const approvedTypes = new Set(['31', '33', '34', '44', '45']);

/** Every finding of a set file, by case; empty for a set that may start. */
export function checkSetFile(cases: readonly SetCase[], context: { now: Date; issuerRnc?: string }): CaseFinding[] {
  const findings: CaseFinding[] = [];
  const add = (index: number, caseKey: string, found: readonly Finding[]) =>
    findings.push(...found.map((finding) => ({ ...finding, index, caseKey })));
  const seen = new Set<string>();
  const ecfByKey = new Map<string, SetCase>();
  cases.forEach((setCase, index) => {
    const id = `${setCase.kind} ${setCase.caseKey}`;
    if (seen.has(id))
      add(index, setCase.caseKey, [
        error('/caseKey', 'duplicate_case', `Another ${setCase.kind} case has the key ${setCase.caseKey}.`),
      ]);
    seen.add(id);
    if (setCase.kind === 'ECF') ecfByKey.set(setCase.caseKey, setCase);
  });
  const rfceKeys = new Set(cases.filter((setCase) => setCase.kind === 'RFCE').map((setCase) => setCase.caseKey));
  cases.forEach((setCase, index) => {
    // An e-CF nests 7 levels at most (Item > TablaSubDescuento > SubDescuento > leaf under DetallesItems): anything
    // far deeper is no case, and is refused before any walk over it.
    if (depthOf(setCase.payload, maxPayloadDepth) > maxPayloadDepth) {
      add(index, setCase.caseKey, [
        error(
          '',
          'too_deep',
          `The payload nests deeper than ${String(maxPayloadDepth)} levels; no DGII document does.`,
        ),
      ]);
      return;
    }
    switch (setCase.kind) {
      case 'ECF':
        add(index, setCase.caseKey, checkEcfCase(setCase, context));
        if (isRfceRouted(setCase) && !rfceKeys.has(setCase.caseKey)) {
          add(index, setCase.caseKey, [
            error(
              '',
              'rfce_case_missing',
              'A type 32 under DOP 250,000.00 reaches DGII as an RFCE: the set needs its RFCE case, with the same key.',
            ),
          ]);
        }
        return;
      case 'RFCE':
        add(index, setCase.caseKey, checkRfceCase(setCase, ecfByKey.get(setCase.caseKey)));
        return;
      case 'ACECF':
        add(index, setCase.caseKey, checkAcecfCase(setCase, context.issuerRnc));
        return;
    }
  });
  return findings;
}

function checkRfceCase(rfce: SetCase, ecf: SetCase | undefined): Finding[] {
  if (ecf === undefined || !isRfceRouted(ecf)) {
    return [
      error(
        '/caseKey',
        'rfce_without_ecf',
        `An RFCE case needs the type-32 ECF case under DOP 250,000.00 with the same key (${rfce.caseKey}): the RFCE is written from that e-CF once signed.`,
      ),
    ];
  }
  // What the service will send is the RFCE written from the signed e-CF; it must say what the set's row says.
  const expected = leavesOf(rfcePayloadOf(ecf.payload));
  const given = leavesOf(rfce.payload);
  given.delete('/Encabezado/CodigoSeguridadeCF');
  const findings: Finding[] = [];
  for (const [pointer, value] of given) {
    const written = expected.get(pointer);
    if (written !== value)
      findings.push(
        error(
          pointer,
          'rfce_differs',
          `The RFCE's ${pointer.slice(1)} is ${JSON.stringify(value)}, but the RFCE written from the e-CF ${rfce.caseKey} says ${written === undefined ? 'nothing' : JSON.stringify(written)}.`,
        ),
      );
  }
  for (const [pointer, value] of expected)
    if (!given.has(pointer))
      findings.push(
        error(
          pointer,
          'rfce_differs',
          `The RFCE written from the e-CF ${rfce.caseKey} has ${pointer.slice(1)} ${JSON.stringify(value)}, which the RFCE case lacks.`,
        ),
      );
  return findings;
}

const acecfFields = ['Version', 'RNCEmisor', 'eNCF', 'FechaEmision', 'MontoTotal', 'RNCComprador', 'Estado'] as const;

function checkAcecfCase(acecf: SetCase, issuerRnc: string | undefined): Finding[] {
  const detail = acecf.payload['DetalleAprobacionComercial'];
  if (!isObject(detail))
    return [
      error(
        '/DetalleAprobacionComercial',
        'missing',
        'An ACECF case is {DetalleAprobacionComercial: {Version, RNCEmisor, eNCF, FechaEmision, MontoTotal, RNCComprador, Estado, ...}}.',
      ),
    ];
  const findings: Finding[] = [];
  for (const [pointer, value] of leavesOf(detail, '/DetalleAprobacionComercial'))
    if (typeof value !== 'string') findings.push(error(pointer, 'not_text', 'Every value of an approval is text.'));
  for (const name of acecfFields)
    if (textAt(detail, [name]) === undefined)
      findings.push(error(`/DetalleAprobacionComercial/${name}`, 'missing', `${name} is required in an ACECF.`));
  const estado = textAt(detail, ['Estado']);
  if (estado !== undefined && estado !== '1' && estado !== '2')
    findings.push(
      error('/DetalleAprobacionComercial/Estado', 'not_in_catalogue', 'Estado is 1 (approved) or 2 (rejected).'),
    );
  if (estado === '2' && textAt(detail, ['DetalleMotivoRechazo']) === undefined)
    findings.push(
      error('/DetalleAprobacionComercial/DetalleMotivoRechazo', 'missing', 'A rejection (Estado 2) says why.'),
    );
  if (!/^\d+(\.\d{1,2})?$/.test(textAt(detail, ['MontoTotal']) ?? '0'))
    findings.push(
      error(
        '/DetalleAprobacionComercial/MontoTotal',
        'amount_format',
        'MontoTotal is an amount with at most two decimals.',
      ),
    );
  const buyer = textAt(detail, ['RNCComprador']);
  if (findings.length === 0) {
    // Written as the lane will write it (the signing time aside): whatever DGII's format refuses is found now.
    const text = (name: string) => textAt(detail, [name]) ?? '';
    const common = {
      RNCEmisor: text('RNCEmisor'),
      eNCF: text('eNCF'),
      FechaEmision: text('FechaEmision'),
      MontoTotal: text('MontoTotal'),
      RNCComprador: text('RNCComprador'),
      FechaHoraAprobacionComercial: text('FechaHoraAprobacionComercial') || '01-01-2000 00:00:00',
    };
    const built = buildAcecf(
      estado === '2'
        ? { ...common, Estado: '2', DetalleMotivoRechazo: text('DetalleMotivoRechazo') }
        : { ...common, Estado: '1' },
    );
    if (!built.ok)
      findings.push(
        ...built.findings.map((finding) => ({ ...finding, pointer: `/DetalleAprobacionComercial${finding.pointer}` })),
      );
  }
  if (issuerRnc !== undefined && buyer !== undefined && buyer !== issuerRnc)
    findings.push(
      error(
        '/DetalleAprobacionComercial/RNCComprador',
        'not_the_company',
        `In the set's approvals the company is the buyer: RNCComprador must be ${issuerRnc}.`,
      ),
    );
  return findings;
}

/**
 * The step-3 approvals DGII's ACECF workbook holds, derived from the ECF cases: one per case of type 31, 33, 34, 44
 * or 45, signed by the company AS BUYER of a mirror image of its own e-CF (RNCEmisor = that e-CF's buyer), Estado 1.
 * FechaHoraAprobacionComercial is the signing time, set when it is signed.
 */
export function deriveAcecfCases(cases: readonly SetCase[], companyRnc: string): SetCase[] {
  return cases.flatMap((setCase) => {
    if (setCase.kind !== 'ECF' || !approvedTypes.has(setCase.ecfType ?? '')) return [];
    const payload = setCase.payload;
    const buyer = textAt(payload, ['Encabezado', 'Comprador', 'RNCComprador']);
    const eNCF = textAt(payload, ['Encabezado', 'IdDoc', 'eNCF']);
    const fechaEmision = textAt(payload, ['Encabezado', 'Emisor', 'FechaEmision']);
    const montoTotal = textAt(payload, ['Encabezado', 'Totales', 'MontoTotal']);
    if (buyer === undefined || eNCF === undefined || fechaEmision === undefined || montoTotal === undefined) return [];
    const detail = {
      Version: '1.0',
      RNCEmisor: buyer,
      eNCF,
      FechaEmision: fechaEmision,
      MontoTotal: montoTotal,
      RNCComprador: companyRnc,
      Estado: '1',
    };
    return [
      {
        kind: 'ACECF' as const,
        caseKey: `${companyRnc}${eNCF}`,
        ecfType: setCase.ecfType ?? '',
        payload: { DetalleAprobacionComercial: detail },
      },
    ];
  });
}

// Steps 9 and 11 as DGII plays them against the taxpayer's test URLs (research/certification.md §1, "Step 9 in
// detail" and "Step 11 in detail"; §6.12). DGII authenticates at the receiver the way the receiver standard says
// (seed, then the signed seed to `validacionCertificado`, mixed case, reading `expira` as a date-time), signs with
// its test certificate, and:
//   - step 9: sends e-CF of its test taxpayer 131880681 to the taxpayer as buyer, and wants a signed ARECF back for
//     each, Estado 0, about that e-NCF and that buyer;
//   - step 11: sends one ACECF per row of the step-3 approvals, issuer the taxpayer, buyer 131880681, Estado 1,
//     and wants HTTP 200 for each.
// A failure is reported in the words DGII's portal used (WL's observations, §1): .NET's, since DGII's client is.
import { STATUS_CODES } from 'node:http';
import { deriveAcecfCases, type SetCase } from '../../fiscal/certification/index.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { parseXmlTree } from '../../fiscal/parse/index.js';
import { buildAcecf } from '../../fiscal/responses/acecf.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import { issueEcf, judgeArecf, recordExchange } from '../counterpart/counterpart-issuer.js';
import {
  authenticateAt,
  endpointUrl,
  httpUrl,
  postXml,
  standardPaths,
  type Authenticated,
  type Caller,
} from '../counterpart/counterpart-outbound.js';
import type { SandboxContext } from '../http/context.js';
import type { ReceiverUrls } from '../state/schema.js';
import { dgiiTestIdentity, type DgiiTestIdentity } from './dgii-test-identity.js';
import { textAt } from './set-composition.js';

export type ReceiverTestResult = { ok: true } | { ok: false; detail: string };

/** How many e-CF DGII sends in step 9 is UNKNOWN (research §7.3); WL kept two, both type 31. */
export const receptionTestDocuments = 2;

/** DGII's spelling of the signed seed's endpoint (research §1): receivers must route it case-insensitively. */
const dgiiValidationPath = '/fe/autenticacion/api/validacionCertificado';

/** .NET's HttpClient words an unsuccessful status so; DGII's portal showed "Unauthorized" for a 401 (WL). */
function statusMessage(status: number): string {
  if (status === 401) return 'Unauthorized';
  return `Response status code does not indicate success: ${String(status)} (${STATUS_CODES[status] ?? 'Unknown'}).`;
}

function authenticationFailure(authenticated: Exclude<Authenticated, { ok: true }>): string {
  switch (authenticated.failure.kind) {
    case 'unreachable':
      return authenticated.message;
    case 'status':
      return statusMessage(authenticated.failure.status);
    case 'seed':
    case 'token':
      // WL: what DGII showed when `expira` came as a Unix integer.
      return 'Ha ocurrido un error recibiendo el token';
  }
}

async function authenticate(
  context: SandboxContext,
  identity: DgiiTestIdentity,
  urls: ReceiverUrls,
): Promise<{ ok: true; token: string | undefined } | { ok: false; detail: string }> {
  const caller: Caller = { key: identity.key, validationPath: dgiiValidationPath, requireDateTimeExpiry: true };
  const authenticated = await authenticateAt(context, httpUrl(urls.authenticationUrl), caller);
  return authenticated.ok ? authenticated : { ok: false, detail: authenticationFailure(authenticated) };
}

/** What DGII makes of the receiver's answer to an e-CF: undefined when it is a good ARECF. */
function arecfProblem(
  context: SandboxContext,
  body: string,
  expected: { encf: string; buyer: string; issuerRnc: string },
): string | undefined {
  const parsed = parseXmlTree(body);
  // .NET's XmlReader on a body that is not XML (WL: a JSON answer), and its validation on another root (WL).
  if (!parsed.ok) return 'Data at the root level is invalid. Line 1, position 1.';
  if (parsed.root !== 'ARECF') return `The '${parsed.root}' element is not declared.`;
  const judged = judgeArecf(context, body, expected);
  if (!judged.valid) return judged.messages.join(' ');
  if (judged.estado !== '0') return judged.messages.join(' ');
  return undefined;
}

/** Step 9: DGII's e-CF to the taxpayer's reception URL, each answered by a valid ARECF with Estado 0. */
export async function testEcfReception(
  context: SandboxContext,
  rnc: string,
  urls: ReceiverUrls,
  count = receptionTestDocuments,
): Promise<ReceiverTestResult> {
  const identity = await dgiiTestIdentity(context);
  const session = await authenticate(context, identity, urls);
  if (!session.ok) return session;
  const reception = httpUrl(urls.receptionUrl);
  if (reception === undefined) return { ok: false, detail: `La URL de recepción ${urls.receptionUrl} no es válida.` };
  const target = endpointUrl(reception, standardPaths.recepcion);
  for (let sent = 0; sent < count; sent += 1) {
    const { encf, xml } = await issueEcf(context, 'certecf', { issuer: identity, buyerRnc: rnc, type: '31' });
    const sentAt = context.clock.now();
    // DT: the file is named RNCEmisor + eNCF.
    const answer = await postXml(context, target, xml, `${identity.rnc}${encf}.xml`, session.token);
    let problem: string | undefined;
    if (!answer.ok) problem = answer.message;
    else if (answer.status !== 200) problem = statusMessage(answer.status);
    else problem = arecfProblem(context, answer.body, { encf, buyer: rnc, issuerRnc: identity.rnc });
    await recordExchange(context, 'certecf', {
      kind: 'ecf',
      rnc: identity.rnc,
      encf,
      targetUrl: target,
      sentAt,
      httpStatus: answer.ok ? answer.status : null,
      responseXml: answer.ok ? answer.body.slice(0, 100_000) : null,
      state: problem === undefined ? 'arecf_valid' : 'arecf_invalid',
      messages: problem === undefined ? [] : [problem],
    });
    if (problem !== undefined) return { ok: false, detail: `${encf}: ${problem}` };
  }
  return { ok: true };
}

/** Step 11: one ACECF per step-3 row, mirrored (the taxpayer as issuer, 131880681 as buyer), each answered 200. */
export async function testApprovalReception(
  context: SandboxContext,
  rnc: string,
  urls: ReceiverUrls,
  cases: readonly SetCase[],
): Promise<ReceiverTestResult> {
  const identity = await dgiiTestIdentity(context);
  const session = await authenticate(context, identity, urls);
  if (!session.ok) return session;
  const approvalBase = httpUrl(urls.approvalUrl);
  if (approvalBase === undefined)
    return { ok: false, detail: `La URL de aprobación comercial ${urls.approvalUrl} no es válida.` };
  const target = endpointUrl(approvalBase, standardPaths.aprobacionComercial);
  const failures: string[] = [];
  for (const row of deriveAcecfCases(cases, rnc)) {
    const field = (name: string) => textAt(row.payload, ['DetalleAprobacionComercial', name]) ?? '';
    const encf = field('eNCF');
    const built = buildAcecf({
      RNCEmisor: rnc,
      eNCF: encf,
      FechaEmision: field('FechaEmision'),
      MontoTotal: field('MontoTotal'),
      RNCComprador: identity.rnc,
      Estado: '1',
      FechaHoraAprobacionComercial: formatDgiiTimestamp(context.clock.now()),
    });
    if (!built.ok) {
      failures.push(`${encf}: la aprobación comercial no pudo construirse.`);
      continue;
    }
    const sentAt = context.clock.now();
    // DT: the file is named RNCComprador + eNCF.
    const answer = await postXml(
      context,
      target,
      signCanonicalDocument(built.xml, identity.key),
      `${identity.rnc}${encf}.xml`,
      session.token,
    );
    const problem = !answer.ok ? answer.message : answer.status === 200 ? undefined : statusMessage(answer.status);
    await recordExchange(context, 'certecf', {
      kind: 'acecf',
      rnc: identity.rnc,
      encf,
      targetUrl: target,
      sentAt,
      httpStatus: answer.ok ? answer.status : null,
      responseXml: null,
      state: problem === undefined ? 'accepted' : 'refused',
      messages: problem === undefined ? [] : [problem],
    });
    if (problem !== undefined) failures.push(`${encf}: ${problem}`);
  }
  return failures.length === 0 ? { ok: true } : { ok: false, detail: failures.join(' ') };
}

// The counterpart receiving a commercial approval (ACECF) of an e-CF it issued (DT simulator "Recepción:
// Aprobación Comercial"; research/dgii-protocol.md §6.1, §6.3): HTTP 200 when satisfied, 400 with the reason when
// not. The e-CFs the counterpart issued are in DGII's documents (it reports them there when it issues them), so the
// approval is checked against what DGII holds: issuer, buyer, FechaEmision and MontoTotal.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseXmlTree } from '../../fiscal/parse/index.js';
import { acecfMismatches, readAcecf, takesCommercialApproval } from '../../fiscal/responses/acecf-read.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import { recordArrival } from '../http/arrivals.js';
import type { SandboxContext } from '../http/context.js';
import { messageError, unauthorized } from '../http/dgii-replies.js';
import { readXmlUpload } from '../http/xml-upload.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { counterpartCaller } from './counterpart-authentication.js';

type Check =
  | { ok: true; rnc: string; encf: string }
  | { ok: false; mensaje: string; outcome: string; rnc?: string | undefined; encf?: string | undefined };

async function checkApproval(context: SandboxContext, environment: SandboxEnvironment, xml: Buffer): Promise<Check> {
  const parsed = parseXmlTree(xml);
  if (!parsed.ok || parsed.root !== 'ACECF')
    return {
      ok: false,
      mensaje: 'El archivo enviado no es una aprobación comercial (ACECF) válida.',
      outcome: 'refused:specification',
    };
  const approval = readAcecf(parsed.tree);
  const rnc = approval?.RNCEmisor;
  const encf = approval?.eNCF;
  const refuse = (mensaje: string, outcome: string): Check => ({ ok: false, mensaje, outcome, rnc, encf });
  if (context.schemas !== undefined && context.schemas.validate('ACECF', xml).length > 0)
    return refuse('La estructura del XML no es válida según el XSD de la aprobación comercial (ACECF).', 'refused:xsd');
  if (approval === undefined || rnc === undefined || encf === undefined)
    return refuse(
      'La aprobación comercial no indica RNCEmisor, eNCF, FechaEmision, MontoTotal, RNCComprador y Estado.',
      'refused:specification',
    );
  if (!verifyEnvelopedSignature(xml).ok)
    return refuse('La firma digital de la aprobación comercial no es válida.', 'refused:signature');
  if (rnc !== context.counterpart.rnc)
    return refuse(`El RNCEmisor ${rnc} no corresponde a este receptor (${context.counterpart.rnc}).`, 'refused:issuer');
  if (!takesCommercialApproval(encf))
    return refuse('Aprobación Comercial no es requerida para este tipo de e-CF.', 'refused:type');
  const issued = await context.db
    .selectFrom('sandbox_documents')
    .select(['rnc_comprador', 'fecha_emision', 'monto_total'])
    .where('environment', '=', environment)
    .where('channel', '=', 'ecf')
    .where('rnc_emisor', '=', rnc)
    .where('encf', '=', encf)
    .where('outcome', 'in', [1, 4])
    .executeTakeFirst();
  if (issued === undefined)
    return refuse(`Factura no encontrada: ${rnc} no emitió el e-NCF ${encf}.`, 'refused:unknown_ecf');
  const [mismatch] = acecfMismatches(approval, {
    RNCComprador: issued.rnc_comprador,
    FechaEmision: issued.fecha_emision,
    MontoTotal: issued.monto_total,
  });
  switch (mismatch) {
    case undefined:
      break;
    case 'RNCComprador':
      return refuse('El RNCComprador no corresponde al comprador del e-CF.', 'refused:buyer');
    case 'FechaEmision':
      return refuse('La FechaEmision no corresponde a la del e-CF.', 'refused:date');
    case 'MontoTotal':
      return refuse('El MontoTotal no corresponde al del e-CF.', 'refused:amount');
  }
  return { ok: true, rnc, encf };
}

export async function receiveApproval(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const record = (outcome: string, rnc?: string, encf?: string) =>
    recordArrival(context, { service: 'emisorreceptor', environment, rnc, encf, outcome: `approval:${outcome}` });
  const caller = await counterpartCaller(context, request, environment);
  if (!caller.ok) {
    await record('unauthorized');
    return unauthorized(reply);
  }
  const upload = await readXmlUpload(request);
  if (!upload.ok) {
    await record('refused:upload');
    return messageError(reply, upload.status, upload.mensaje);
  }
  const check = await checkApproval(context, environment, upload.xml);
  if (!check.ok) {
    await record(check.outcome, check.rnc, check.encf);
    return messageError(reply, 400, check.mensaje);
  }
  if (request.sandboxFault === 'reject') {
    await record('fault:reject', check.rnc, check.encf);
    return messageError(reply, 400, 'La aprobación comercial no pudo ser recibida.');
  }
  await record(
    request.sandboxFault === 'accept_then_lose' ? 'fault:accept_then_lose' : 'received',
    check.rnc,
    check.encf,
  );
  return reply.code(200).send();
}

// Step 13, "Declaración Jurada" (research/certification.md §1): "Generar Archivo" gives an XML, the registered
// representative signs it outside the portal and uploads it; DGII checks that the signer is the representative.
// DGII's file format is not public: the sandbox's names the taxpayer and carries a code of its own, so that only the
// file it issued, signed, is taken. "The representative" is, here, a certificate delegated for the RNC.
import { randomBytes } from 'node:crypto';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { parseXmlTree, textOf } from '../../fiscal/parse/index.js';
import { leaf, writeXmlDocument } from '../../fiscal/xml/xml-writer.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SandboxContext } from '../http/context.js';
import { certificateFingerprint, isDelegated } from '../http/sessions.js';
import { updatePostulacion, withPostulacion } from '../state/postulaciones.js';
import { actionRefused, wrongStep, type ActionResult } from './portal-results.js';
import { step } from './portal-steps.js';

export const declarationRoot = 'DeclaracionJurada';

const declarationText =
  'Declaro bajo juramento que la información suministrada en el proceso de certificación es veraz, y que el software de facturación electrónica cumple con las normas y especificaciones técnicas de la DGII.';

function newDeclarationCode(): string {
  return randomBytes(12).toString('hex').toUpperCase();
}

export function swornDeclarationXml(input: { rnc: string; name: string; code: string; now: Date }): string {
  return writeXmlDocument({
    name: declarationRoot,
    content: [
      leaf('RNC', input.rnc),
      leaf('RazonSocial', input.name),
      leaf('CodigoDeclaracion', input.code),
      leaf('FechaGeneracion', formatDgiiTimestamp(input.now)),
      leaf('Declaracion', declarationText),
    ],
  });
}

/** Why a signed declaration is not taken; undefined when it is. */
export async function signedDeclarationProblem(
  context: SandboxContext,
  xml: string,
  expected: { rnc: string; code: string | null },
): Promise<string | undefined> {
  const parsed = parseXmlTree(xml);
  if (!parsed.ok || parsed.root !== declarationRoot)
    return `The file is not the sworn declaration the portal issued (a ${declarationRoot} XML).`;
  if (textOf(parsed.tree, 'RNC') !== expected.rnc) return `The declaration is not for RNC ${expected.rnc}.`;
  if (expected.code === null || textOf(parsed.tree, 'CodigoDeclaracion') !== expected.code)
    return 'The declaration is not the one the portal issued last: download sworn-declaration.xml again and sign that one.';
  const verified = verifyEnvelopedSignature(xml);
  if (!verified.ok)
    return `The declaration's signature does not verify: ${verified.problems.map((problem) => problem.message).join('; ')}`;
  if (!(await isDelegated(context, certificateFingerprint(verified.certificatePem), expected.rnc)))
    return `The certificate that signed the declaration is not delegated for RNC ${expected.rnc}.`;
  return undefined;
}

export type DeclarationDownload = { ok: true; xml: string } | { ok: false; refusal: ActionResult };

/** "Generar Archivo" at step 13: the same declaration on every download until it is signed and taken. */
export async function swornDeclarationDownload(
  context: SandboxContext,
  postulacionId: number,
): Promise<DeclarationDownload> {
  const download = await withPostulacion(
    context.db,
    postulacionId,
    async (trx, postulacion): Promise<DeclarationDownload> => {
      if (postulacion.cancelled || postulacion.step !== step.swornDeclaration)
        return {
          ok: false,
          refusal: wrongStep(postulacion, 'Generating the sworn declaration', [step.swornDeclaration]),
        };
      const now = context.clock.now();
      let code = postulacion.declaration_code;
      if (code === null) {
        code = newDeclarationCode();
        await updatePostulacion(trx, postulacion, { declaration_code: code }, now);
      }
      const taxpayer = await trx
        .selectFrom('sandbox_taxpayers')
        .select('name')
        .where('rnc', '=', postulacion.rnc)
        .executeTakeFirst();
      return {
        ok: true,
        xml: swornDeclarationXml({ rnc: postulacion.rnc, name: taxpayer?.name ?? postulacion.rnc, code, now }),
      };
    },
  );
  return download ?? { ok: false, refusal: actionRefused(404, 'The postulación is gone.') };
}

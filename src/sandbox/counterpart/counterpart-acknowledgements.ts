// DT simulator "Emisión: Consulta de Acuse": the validation state of the ARECF a taxpayer's receiver returned for an
// e-CF the counterpart sent it. DGII's estado texts are not public; these say plainly which of the four outcomes
// the counterpart recorded.
import type { SandboxContext } from '../http/context.js';
import type { SandboxEnvironment } from '../state/schema.js';

const estadoText: Readonly<Record<string, string>> = {
  arecf_valid: 'Acuse de recibo válido',
  arecf_invalid: 'Acuse de recibo inválido',
  no_answer: 'Sin respuesta del receptor',
  auth_failed: 'Error de autenticación con el receptor',
};

export interface AcknowledgementAnswer {
  rnc: string;
  encf: string;
  estado: string;
  mensajes: string[];
}

/**
 * The latest exchange for the e-NCF. `rnc` is the receiver the e-CF was addressed to (its buyer, as DGII's
 * documents record it); the counterpart's own RNC is taken too, since either side may be meant by the caller.
 */
export async function acknowledgementOf(
  context: SandboxContext,
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
): Promise<AcknowledgementAnswer | undefined> {
  const issued = await context.db
    .selectFrom('sandbox_documents')
    .select('rnc_comprador')
    .where('environment', '=', environment)
    .where('rnc_emisor', '=', context.counterpart.rnc)
    .where('encf', '=', encf)
    .executeTakeFirst();
  if (issued === undefined || (rnc !== issued.rnc_comprador && rnc !== context.counterpart.rnc)) return undefined;
  const exchange = await context.db
    .selectFrom('sandbox_exchanges')
    .select(['state', 'messages'])
    .where('environment', '=', environment)
    .where('kind', '=', 'ecf')
    .where('rnc', '=', context.counterpart.rnc)
    .where('encf', '=', encf)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (exchange === undefined) return undefined;
  return { rnc, encf, estado: estadoText[exchange.state] ?? exchange.state, mensajes: exchange.messages };
}

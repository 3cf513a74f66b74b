// Step 4, "Pruebas Simulación e-CF": documents built from "datos representativos de la operatividad real", with new
// e-NCF and the taxpayer's own data (research/certification.md §4). The sets' issuer texts are DGII placeholders;
// one of them in a simulation document means the set was replayed rather than the real operation simulated (BF had
// the placeholder refused, §2 and §4), so it is rejected.
import type { SetCase } from '../../fiscal/certification/index.js';
import { groupsOf, parseXmlTree, textOf } from '../../fiscal/parse/index.js';
import type { SandboxMessage } from '../state/schema.js';
import { placeholderIssuerName } from './set-generator.js';
import { emulatorCodes, emulatorMarker } from './portal-steps.js';
import { textAt } from './set-composition.js';

function issuerNameOf(xml: Buffer): string | undefined {
  const parsed = parseXmlTree(xml);
  if (!parsed.ok) return undefined;
  const emisor = groupsOf(parsed.tree, 'Encabezado').flatMap((encabezado) => groupsOf(encabezado, 'Emisor'))[0];
  return emisor === undefined ? undefined : textOf(emisor, 'RazonSocialEmisor');
}

/** The placeholder names: the generator's, and whatever the postulación's set gives as RazonSocialEmisor. */
function placeholdersOf(cases: readonly SetCase[]): Set<string> {
  const names = new Set([placeholderIssuerName]);
  for (const setCase of cases) {
    const name = textAt(setCase.payload, ['Encabezado', 'Emisor', 'RazonSocialEmisor']);
    if (name !== undefined) names.add(name);
  }
  return names;
}

/** `registeredName`: the taxpayer's own name in DGII's registry, never a placeholder even if a given set used it. */
export function simulationRefusal(
  cases: readonly SetCase[],
  encf: string,
  xml: Buffer,
  registeredName: string | undefined,
): SandboxMessage | undefined {
  const name = issuerNameOf(xml);
  if (name === undefined || name === registeredName || !placeholdersOf(cases).has(name)) return undefined;
  return {
    codigo: emulatorCodes.placeholderIssuer,
    valor: `${emulatorMarker} ${encf}: RazonSocialEmisor "${name}" es el texto de ejemplo del set de pruebas; la simulación se hace con los datos reales del emisor.`,
  };
}

// DGII's directory of electronic issuers (consultadirectorio), asked with the caller's company session: whether a
// taxpayer issues e-CF, and its receiver's URLs.
import type { DgiiClient } from '../../dgii/index.js';
import type { DirectoryLookup } from './taxpayers.service.js';

export function dgiiDirectory(dgii: Pick<DgiiClient, 'directory'>): DirectoryLookup {
  return async (rnc, companyId) => {
    const found = await dgii.directory(companyId, rnc);
    if (found.kind === 'not_found') return undefined;
    if (found.kind !== 'found') throw new Error(`DGII's directory did not answer: ${found.kind}`);
    const { urlRecepcion, urlAceptacion, urlOpcional } = found.entry;
    return {
      electronicIssuer: true,
      urls: {
        reception: urlRecepcion,
        approval: urlAceptacion,
        ...(urlOpcional === '' ? {} : { authentication: urlOpcional }),
      },
    };
  };
}

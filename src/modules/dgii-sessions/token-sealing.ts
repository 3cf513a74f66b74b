// DGII session tokens are kept sealed under the master key wherever they are shared (Redis): the DGII client seals
// and opens them through this.
import type { TokenSealing } from '../../dgii/index.js';
import { openSecret, sealSecret } from '../../platform/crypto/secret-box.js';

export function sessionTokenSealing(masterKey: Buffer): TokenSealing {
  return {
    seal: (text) => sealSecret(masterKey, text, 'dgii-token'),
    open: (sealed) => {
      try {
        return openSecret(masterKey, sealed, 'dgii-token').toString('utf8');
      } catch {
        // Sealed under another key (rotated, or another deployment's cache): a new session is asked for.
        return undefined;
      }
    },
  };
}

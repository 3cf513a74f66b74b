export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
export { ensureTestRanges } from './state/taxpayers.js';
export { counterpartRnc } from './counterpart/identity.js';
export { upsertTaxpayer, addRange, type TaxpayerInput, type RangeInput } from './state/taxpayers.js';
export { certificateFingerprint } from './http/sessions.js';
export type { SandboxEnvironment } from './state/schema.js';
export { dgiiTarget, type DgiiTarget } from './embedded.js';

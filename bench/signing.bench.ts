// XMLDSig signing throughput against the floor set by RSA itself. The targets are for build + sign through
// the real builder: >= 0.9x the raw node:crypto RSA-2048 sign rate for a 3-line e-CF, >= 0.5x at 200 lines, and
// cost linear in lines. The fast signing path alone (it hashes the canonical bytes and signs ~700 bytes of
// SignedInfo: no DOM) and the DOM signer are shown for contrast.
import { createPrivateKey, sign } from 'node:crypto';
import { buildEcf, type EcfJson } from '../src/fiscal/build/index.js';
import { signCanonicalDocument, signXml } from '../src/fiscal/xmldsig/index.js';
import { ecfDocuments, ownedFieldsFor } from '../test/support/ecf-documents.js';
import type { SigningKey } from '../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { syntheticCanonicalEcf } from '../test/support/synthetic-ecf.js';
import { rateAgainst } from './support/rate.js';
import type { BenchRow } from './support/table.js';

/** The realistic type-31 test document with its first line repeated up to `lines` lines. */
function invoiceWithLines(lines: number): EcfJson {
  const base = ecfDocuments['31'] as { DetallesItems: { Item: Record<string, unknown>[] } } & Record<string, unknown>;
  const first = base.DetallesItems.Item[0] ?? {};
  const items = Array.from({ length: lines }, (_, i) => ({ ...first, NumeroLinea: String(i + 1) }));
  return { ...base, DetallesItems: { Item: items } };
}

function benchKey(): SigningKey {
  const created = createSelfSignedP12({
    commonName: 'BENCH',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2036-01-01T00:00:00Z'),
    password: 'bench',
  });
  return { privateKey: createPrivateKey(created.privateKeyPem), certificatePem: created.certificatePem };
}

const perSecond = (value: number) => `${value.toFixed(0)} signs/s`;
const kilobytes = (document: string) => `${(Buffer.byteLength(document) / 1024).toFixed(1)} KB`;

export async function signingBench(): Promise<BenchRow[]> {
  const key = benchKey();
  const signedInfoSized = Buffer.alloc(700, 'a');
  const rawSign = () => sign('sha256', signedInfoSized, key.privateKey);
  const raw = (await rateAgainst(rawSign, rawSign)).rate;
  const rows: BenchRow[] = [
    { benchmark: 'raw node:crypto RSA-2048 sign (SHA-256, 700 B)', result: perSecond(raw), note: 'the ceiling' },
  ];

  for (const [lines, target] of [
    [3, 0.9],
    [105, undefined],
    [200, 0.5],
    [535, undefined],
  ] as const) {
    const document = syntheticCanonicalEcf(lines);
    const fast = await rateAgainst(() => signCanonicalDocument(document, key), rawSign);
    const verdict =
      target === undefined
        ? ''
        : fast.ratio >= target
          ? ` (target >= ${target}x: met)`
          : ` (target >= ${target}x: MISSED)`;
    rows.push({
      benchmark: `fast path, ${lines} lines, ${kilobytes(document)}`,
      result: perSecond(fast.rate),
      note: `${fast.ratio.toFixed(2)}x raw${verdict}`,
    });
  }

  // What the targets are for: the real builder (model walk, validation, canonical writer) plus the fast signing path.
  for (const [lines, target] of [
    [3, 0.9],
    [200, 0.5],
    [1_000, undefined],
  ] as const) {
    const document = invoiceWithLines(lines);
    const buildAndSign = () => {
      const built = buildEcf(document, ownedFieldsFor('31'));
      if (!built.ok) throw new Error(`bench document does not build: ${JSON.stringify(built.findings[0])}`);
      return signCanonicalDocument(built.xml, key);
    };
    const measured = await rateAgainst(buildAndSign, rawSign);
    const verdict =
      target === undefined
        ? ''
        : measured.ratio >= target
          ? ` (target >= ${target}x: met)`
          : ` (target >= ${target}x: MISSED)`;
    rows.push({
      benchmark: `build + sign e-CF 31, ${lines} lines`,
      result: perSecond(measured.rate),
      note: `${measured.ratio.toFixed(2)}x raw${verdict}`,
    });
  }

  const small = syntheticCanonicalEcf(3);
  const general = await rateAgainst(() => signXml(small, key), rawSign);
  rows.push({
    benchmark: `general signer (DOM + C14N), 3 lines, ${kilobytes(small)}`,
    result: perSecond(general.rate),
    note: `${general.ratio.toFixed(2)}x raw`,
  });
  return rows;
}

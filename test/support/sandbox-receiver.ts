// A taxpayer's receiver for the sandbox's tests: the four routes of DGII's receiver standard (seed, signed seed for a
// token, e-CF in → signed ARECF out, ACECF in → 200), keeping everything it was sent so a test can look at the bytes,
// headers, tokens and paths that arrived. Used by the counterpart's tests and by DGII's certification steps 9 and 11.
// Routing is case-insensitive because DGII writes `validacionCertificado`. Each answer can be made wrong per test, the
// ways real receivers were (research/certification.md §1): a bad ARECF, JSON instead of an ARECF, a refused approval,
// a Unix-time `expira`.
import { randomBytes } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyRequest } from 'fastify';
import { formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import { parseEcf } from '../../src/fiscal/parse/index.js';
import { buildArecf } from '../../src/fiscal/responses/arecf.js';
import { buildSemilla, parseSemilla } from '../../src/fiscal/responses/semilla.js';
import { signCanonicalDocument, verifyEnvelopedSignature, type SigningKey } from '../../src/fiscal/xmldsig/index.js';

export interface ReceivedUpload {
  xml: string;
  filename: string;
  authorization: string | undefined;
  contentLength: string | undefined;
}

/**
 * How the receiver answers an e-CF: a valid ARECF, one whose signature breaks, one about another e-NCF, plain text,
 * or JSON (what a receiver that ignores the standard answers).
 */
export type ArecfMode = 'good' | 'tampered' | 'wrong_encf' | 'not_xml' | 'json';

export interface TestReceiver {
  url: string;
  rnc: string;
  ecfs: ReceivedUpload[];
  approvals: ReceivedUpload[];
  /** Tokens this receiver handed out. */
  tokens: string[];
  /** Every path requested, as the caller wrote it (to see DGII's casing). */
  paths: string[];
  arecfMode: ArecfMode;
  /** Answer approvals with this status (the standard: 200 satisfied, 400 not). */
  approvalStatus: number;
  /** The token's `expira`: a date-time as the standard says, or the Unix time some receivers send. */
  expira: 'date-time' | 'unix';
  /**
   * Answer 401 to an e-CF or approval without one of this receiver's tokens. Off by default: the counterpart may send
   * without authenticating; DGII's certification tests must authenticate.
   */
  requireToken: boolean;
  close(): Promise<void>;
}

async function upload(request: FastifyRequest): Promise<ReceivedUpload> {
  const file = await request.file();
  return {
    xml: file === undefined ? '' : (await file.toBuffer()).toString('utf8'),
    filename: file?.filename ?? '',
    authorization: request.headers.authorization,
    contentLength: request.headers['content-length'],
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export async function startTestReceiver(options: { rnc: string; key: SigningKey }): Promise<TestReceiver> {
  const app = Fastify({ routerOptions: { caseSensitive: false } });
  await app.register(multipart);
  const seeds = new Set<string>();
  const receiver: TestReceiver = {
    url: '',
    rnc: options.rnc,
    ecfs: [],
    approvals: [],
    tokens: [],
    paths: [],
    arecfMode: 'good',
    approvalStatus: 200,
    expira: 'date-time',
    requireToken: false,
    close: () => app.close(),
  };
  app.addHook('onRequest', (request, _reply, done) => {
    receiver.paths.push(request.url);
    done();
  });
  const refused = (request: FastifyRequest) =>
    receiver.requireToken &&
    !receiver.tokens.includes((request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));

  app.get('/fe/autenticacion/api/semilla', async (_request, reply) => {
    const valor = randomBytes(32).toString('base64');
    seeds.add(valor);
    const seed = buildSemilla({ valor, fecha: '2026-11-21T10:00:00.0000000-04:00' });
    if (!seed.ok) throw new Error('test seed');
    return reply.type('application/xml').send(seed.xml);
  });

  app.post('/fe/autenticacion/api/validacioncertificado', async (request, reply) => {
    const { xml } = await upload(request);
    const seed = parseSemilla(xml);
    if (!seed.ok || !seeds.delete(seed.value.valor) || !verifyEnvelopedSignature(xml).ok)
      return reply.code(400).send({ mensaje: 'semilla inválida' });
    const token = randomBytes(16).toString('hex');
    receiver.tokens.push(token);
    return {
      token,
      expira: receiver.expira === 'unix' ? 1_795_000_000 : '2026-11-21T15:00:00Z',
      expedido: '2026-11-21T14:00:00Z',
    };
  });

  app.post('/fe/recepcion/api/ecf', async (request, reply) => {
    if (refused(request)) return reply.code(401).send();
    const received = await upload(request);
    receiver.ecfs.push(received);
    if (receiver.arecfMode === 'not_xml') return reply.type('text/plain').send('recibido');
    if (receiver.arecfMode === 'json') return reply.send({ estado: 'recibido' });
    const parsed = parseEcf(received.xml);
    const document = parsed.ok ? parsed.document : {};
    const encabezado = document['Encabezado'] as Record<string, Record<string, unknown>> | undefined;
    const arecf = buildArecf({
      RNCEmisor: text(encabezado?.['Emisor']?.['RNCEmisor']),
      RNCComprador: receiver.rnc,
      eNCF: receiver.arecfMode === 'wrong_encf' ? 'E310000009999' : text(encabezado?.['IdDoc']?.['eNCF']),
      Estado: '0',
      FechaHoraAcuseRecibo: formatDgiiTimestamp(new Date()),
    });
    const signed = signCanonicalDocument(arecf, options.key);
    return reply
      .type('application/xml')
      .send(
        receiver.arecfMode === 'tampered'
          ? signed.replace('<Estado>0</Estado>', '<Estado>1</Estado><CodigoMotivoNoRecibido>3</CodigoMotivoNoRecibido>')
          : signed,
      );
  });

  app.post('/fe/aprobacioncomercial/api/ecf', async (request, reply) => {
    if (refused(request)) return reply.code(401).send();
    receiver.approvals.push(await upload(request));
    return reply
      .code(receiver.approvalStatus)
      .send(receiver.approvalStatus === 200 ? '' : { mensaje: 'Aprobación comercial rechazada por el receptor.' });
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  receiver.url = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`;
  return receiver;
}

// A taxpayer's receiver as DGII reaches it in certification steps 9 and 11: the receiver standard's four routes
// (case-insensitive, as DGII writes `validacionCertificado`), a token whose `expira` is a date-time, a signed ARECF
// for each e-CF and HTTP 200 for each ACECF. Each answer can be made wrong the ways WL's were (research/
// certification.md §1): JSON instead of an ARECF, a 404, a Unix-time `expira`. Everything it got is kept.
import { randomBytes } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyRequest } from 'fastify';
import { formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import { parseEcf } from '../../src/fiscal/parse/index.js';
import { buildArecf } from '../../src/fiscal/responses/arecf.js';
import { buildSemilla, parseSemilla } from '../../src/fiscal/responses/semilla.js';
import { signCanonicalDocument, verifyEnvelopedSignature, type SigningKey } from '../../src/fiscal/xmldsig/index.js';

export interface Arrived {
  path: string;
  xml: string;
  filename: string;
  authorization: string | undefined;
}

export interface CertReceiver {
  url: string;
  ecfs: Arrived[];
  approvals: Arrived[];
  /** Every path requested, as written by the caller. */
  paths: string[];
  ecfAnswer: 'arecf' | 'json';
  approvalStatus: number;
  expira: 'date-time' | 'unix';
  close(): Promise<void>;
}

async function upload(request: FastifyRequest): Promise<Arrived> {
  const file = await request.file();
  return { path: request.url, xml: file === undefined ? '' : (await file.toBuffer()).toString('utf8'), filename: file?.filename ?? '', authorization: request.headers.authorization };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export async function startCertReceiver(options: { rnc: string; key: SigningKey }): Promise<CertReceiver> {
  const app = Fastify({ routerOptions: { caseSensitive: false } });
  await app.register(multipart);
  const seeds = new Set<string>();
  const tokens = new Set<string>();
  const receiver: CertReceiver = { url: '', ecfs: [], approvals: [], paths: [], ecfAnswer: 'arecf', approvalStatus: 200, expira: 'date-time', close: () => app.close() };
  app.addHook('onRequest', (request, _reply, done) => {
    receiver.paths.push(request.url);
    done();
  });
  const authorised = (request: FastifyRequest) => tokens.has((request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));

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
    if (!seed.ok || !seeds.delete(seed.value.valor) || !verifyEnvelopedSignature(xml).ok) return reply.code(400).send({ mensaje: 'semilla inválida' });
    const token = randomBytes(16).toString('hex');
    tokens.add(token);
    return { token, expira: receiver.expira === 'unix' ? 1_795_000_000 : '2026-11-21T15:00:00Z', expedido: '2026-11-21T14:00:00Z' };
  });

  app.post('/fe/recepcion/api/ecf', async (request, reply) => {
    if (!authorised(request)) return reply.code(401).send();
    const received = await upload(request);
    receiver.ecfs.push(received);
    if (receiver.ecfAnswer === 'json') return reply.send({ estado: 'recibido' });
    const parsed = parseEcf(received.xml);
    const encabezado = (parsed.ok ? parsed.document['Encabezado'] : undefined) as Record<string, Record<string, unknown>> | undefined;
    const arecf = buildArecf({
      RNCEmisor: text(encabezado?.['Emisor']?.['RNCEmisor']),
      RNCComprador: options.rnc,
      eNCF: text(encabezado?.['IdDoc']?.['eNCF']),
      Estado: '0',
      FechaHoraAcuseRecibo: formatDgiiTimestamp(new Date()),
    });
    return reply.type('application/xml').send(signCanonicalDocument(arecf, options.key));
  });

  app.post('/fe/aprobacioncomercial/api/ecf', async (request, reply) => {
    if (!authorised(request)) return reply.code(401).send();
    receiver.approvals.push(await upload(request));
    return reply.code(receiver.approvalStatus).send(receiver.approvalStatus === 200 ? '' : { mensaje: 'No encontrado.' });
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  receiver.url = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`;
  return receiver;
}

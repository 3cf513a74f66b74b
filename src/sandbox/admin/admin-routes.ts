// Control of the sandbox for tests and demos, under /sandbox-admin (off unless enabled; a token when configured):
// register taxpayers, ranges and delegated certificates; inject faults; read what arrived; set the "En Proceso"
// delay; play DGII's certification portal; read the mail caught; reset. These are ours, not DGII's, so they answer plain JSON with clear
// messages.
import { timingSafeEqual } from 'node:crypto';
import { portalRoutes } from '../certification/portal-routes.js';
import { mailRoutes } from './mail-routes.js';
import { loadCounterpartIdentity } from '../counterpart/identity.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { canActOut } from '../http/fault-targets.js';
import { sandboxFaultTargets, type SandboxFaultTarget } from '../http/sandbox-route.js';
import { certificateFingerprint } from '../http/sessions.js';
import {
  sandboxEnvironments,
  sandboxFaultModes,
  type SandboxEnvironment,
  type SandboxFaultMode,
} from '../state/schema.js';
import {
  maintenanceWindows,
  maintenanceWindowsSetting,
  statusEnvironments,
  type MaintenanceWindow,
} from '../services/service-status-windows.js';
import { processingDelayMs, writeSetting } from '../state/settings.js';
import { forgetState } from '../state/state-cache.js';
import { addRange, upsertTaxpayer } from '../state/taxpayers.js';

const rnc = { type: 'string', pattern: '^(\\d{9}|\\d{11})$' } as const;

const taxpayerBody = {
  type: 'object',
  required: ['rnc', 'name'],
  additionalProperties: false,
  properties: {
    rnc,
    name: { type: 'string', minLength: 1, maxLength: 150 },
    electronic: { type: 'boolean' },
    active: { type: 'boolean' },
    acceptAnyCertificate: { type: 'boolean' },
    certificates: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'PEM certificates or SHA-256 fingerprints (hex) delegated to act for it',
    },
    receptionUrl: { type: ['string', 'null'] },
    approvalUrl: { type: ['string', 'null'] },
    authenticationUrl: { type: ['string', 'null'] },
  },
} as const;

const rangeBody = {
  type: 'object',
  required: ['environment', 'type', 'from', 'to'],
  additionalProperties: false,
  properties: {
    environment: { type: 'string', enum: [...sandboxEnvironments] },
    type: { type: 'string', enum: ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'] },
    from: { type: 'integer', minimum: 1, maximum: 9_999_999_999 },
    to: { type: 'integer', minimum: 1, maximum: 9_999_999_999 },
    expiresOn: { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  },
} as const;

const faultBody = {
  type: 'object',
  required: ['service', 'mode'],
  additionalProperties: false,
  properties: {
    service: {
      type: 'string',
      enum: [...sandboxFaultTargets],
      description: 'a service by its path segment, or one route of it (`emisorreceptor.recepcion`)',
    },
    mode: { type: 'string', enum: [...sandboxFaultModes] },
    probability: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    count: { type: 'integer', minimum: 1 },
    delayMs: { type: 'integer', minimum: 0, maximum: 600_000 },
  },
} as const;

// Maintenance windows in DGII's own shape (what obtenerventanasmantenimiento answers): times like `9:00 AM`, days
// `dd-MM-yyyy`, Dominican time.
const clockTime = '^(1[0-2]|[1-9]):[0-5]\\d ?(AM|PM|am|pm)$';
const settingsBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    processingDelayMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
    maintenanceWindows: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['ambiente', 'horaInicio', 'horaFin', 'dias'],
        additionalProperties: false,
        properties: {
          ambiente: { type: 'string', enum: [...statusEnvironments] },
          horaInicio: { type: 'string', pattern: clockTime },
          horaFin: { type: 'string', pattern: clockTime },
          dias: { type: 'array', maxItems: 366, items: { type: 'string', pattern: '^\\d{2}-\\d{2}-\\d{4}$' } },
        },
      },
    },
  },
} as const;

interface TaxpayerBody {
  rnc: string;
  name: string;
  electronic?: boolean;
  active?: boolean;
  acceptAnyCertificate?: boolean;
  certificates?: string[];
  receptionUrl?: string | null;
  approvalUrl?: string | null;
  authenticationUrl?: string | null;
}

function fingerprintOf(certificate: string): string {
  const trimmed = certificate.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return trimmed.toLowerCase();
  return certificateFingerprint(trimmed);
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function adminRoutes(app: SandboxApp, context: SandboxContext, token: string | undefined): void {
  const { db } = context;
  void app.register(
    (admin, _options, done) => {
      if (token !== undefined) {
        admin.addHook('onRequest', async (request, reply) => {
          const given = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
          if (given === undefined || !sameToken(given, token))
            await reply.code(401).send({ message: 'Sandbox admin token required (Authorization: Bearer <token>).' });
        });
      }

      admin.post('/taxpayers', { schema: { body: taxpayerBody } }, async (request, reply) => {
        const body = request.body as TaxpayerBody;
        let fingerprints: string[];
        try {
          fingerprints = (body.certificates ?? []).map(fingerprintOf);
        } catch {
          return reply
            .code(400)
            .send({ message: 'certificates: each entry is a PEM certificate or a SHA-256 fingerprint in hex.' });
        }
        await upsertTaxpayer(db, {
          rnc: body.rnc,
          name: body.name,
          electronic: body.electronic,
          active: body.active,
          acceptAnyCertificate: body.acceptAnyCertificate,
          certificateSha256: fingerprints,
          receptionUrl: body.receptionUrl,
          approvalUrl: body.approvalUrl,
          authenticationUrl: body.authenticationUrl,
        });
        return reply.code(201).send({ rnc: body.rnc, delegatedCertificates: fingerprints });
      });

      admin.get('/taxpayers/:rnc', async (request, reply) => {
        const { rnc: id } = request.params as { rnc: string };
        const taxpayer = await db.selectFrom('sandbox_taxpayers').selectAll().where('rnc', '=', id).executeTakeFirst();
        if (taxpayer === undefined) return reply.code(404).send({ message: `No taxpayer ${id} is registered.` });
        const delegations = await db
          .selectFrom('sandbox_delegations')
          .select('certificate_sha256')
          .where('rnc', '=', id)
          .execute();
        const ranges = await db.selectFrom('sandbox_ranges').selectAll().where('rnc', '=', id).orderBy('id').execute();
        return { ...taxpayer, delegatedCertificates: delegations.map((row) => row.certificate_sha256), ranges };
      });

      admin.post('/taxpayers/:rnc/ranges', { schema: { body: rangeBody } }, async (request, reply) => {
        const { rnc: id } = request.params as { rnc: string };
        const body = request.body as {
          environment: SandboxEnvironment;
          type: string;
          from: number;
          to: number;
          expiresOn?: string | null;
        };
        if (body.to < body.from) return reply.code(400).send({ message: 'to must be at least from.' });
        const taxpayer = await db
          .selectFrom('sandbox_taxpayers')
          .select('rnc')
          .where('rnc', '=', id)
          .executeTakeFirst();
        if (taxpayer === undefined)
          return reply.code(404).send({ message: `No taxpayer ${id} is registered; register it first.` });
        await addRange(db, id, {
          environment: body.environment,
          type: body.type,
          firstSequence: body.from,
          lastSequence: body.to,
          expiresOn: body.expiresOn ?? null,
        });
        return reply.code(201).send({ rnc: id, ...body });
      });

      admin.get('/faults', async () => db.selectFrom('sandbox_faults').selectAll().orderBy('id').execute());

      admin.post('/faults', { schema: { body: faultBody } }, async (request, reply) => {
        const body = request.body as {
          service: SandboxFaultTarget;
          mode: SandboxFaultMode;
          probability?: number;
          count?: number;
          delayMs?: number;
        };
        if (!canActOut(body.service, body.mode))
          return reply.code(400).send({ message: `${body.service} does not act out the fault ${body.mode}.` });
        const row = await db
          .insertInto('sandbox_faults')
          .values({
            service: body.service,
            mode: body.mode,
            probability: body.probability ?? 1,
            remaining: body.count ?? null,
            delay_ms: body.delayMs ?? 0,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        forgetState(db);
        return reply.code(201).send(row);
      });

      admin.delete('/faults', async (_request, reply) => {
        await db.deleteFrom('sandbox_faults').execute();
        forgetState(db);
        return reply.code(204).send();
      });

      admin.get('/arrivals', async (request) => {
        const query = request.query as { service?: string; encf?: string; rnc?: string };
        let select = db.selectFrom('sandbox_arrivals').selectAll().orderBy('id');
        if (query.service !== undefined) select = select.where('service', '=', query.service);
        if (query.encf !== undefined) select = select.where('encf', '=', query.encf);
        if (query.rnc !== undefined) select = select.where('rnc', '=', query.rnc);
        return select.execute();
      });

      admin.get('/documents', async (request) => {
        const query = request.query as { encf?: string; rnc?: string };
        let select = db
          .selectFrom('sandbox_documents')
          .select([
            'track_id',
            'environment',
            'channel',
            'rnc_emisor',
            'encf',
            'type',
            'received_at',
            'ready_at',
            'outcome',
            'secuencia_utilizada',
            'messages',
          ])
          .orderBy('received_at');
        if (query.encf !== undefined) select = select.where('encf', '=', query.encf);
        if (query.rnc !== undefined) select = select.where('rnc_emisor', '=', query.rnc);
        return select.execute();
      });

      // What DGII counts per taxpayer and environment: documents by type and verdict (certification's simulation
      // step counts these), plus how many requests reached each receiving service.
      admin.get('/counters', async (request) => {
        const query = request.query as { rnc?: string; environment?: string };
        let documents = db
          .selectFrom('sandbox_documents')
          .select((eb) => [
            'environment',
            'rnc_emisor',
            'channel',
            'type',
            'outcome',
            eb.fn.countAll<number>().as('count'),
          ])
          .groupBy(['environment', 'rnc_emisor', 'channel', 'type', 'outcome'])
          .orderBy('environment')
          .orderBy('rnc_emisor')
          .orderBy('type');
        if (query.rnc !== undefined) documents = documents.where('rnc_emisor', '=', query.rnc);
        if (query.environment !== undefined)
          documents = documents.where('environment', '=', query.environment as SandboxEnvironment);
        let arrivals = db
          .selectFrom('sandbox_arrivals')
          .select((eb) => ['environment', 'rnc', 'service', eb.fn.countAll<number>().as('count')])
          .groupBy(['environment', 'rnc', 'service'])
          .orderBy('environment')
          .orderBy('service');
        if (query.rnc !== undefined) arrivals = arrivals.where('rnc', '=', query.rnc);
        if (query.environment !== undefined) arrivals = arrivals.where('environment', '=', query.environment);
        const outcomeNames: Record<number, string> = { 1: 'accepted', 2: 'rejected', 4: 'accepted_conditional' };
        return {
          documents: (await documents.execute()).map((row) => ({
            environment: row.environment,
            rnc: row.rnc_emisor,
            channel: row.channel,
            type: row.type,
            outcome: outcomeNames[row.outcome] ?? String(row.outcome),
            count: row.count,
          })),
          arrivals: (await arrivals.execute()).map((row) => ({
            environment: row.environment,
            rnc: row.rnc,
            service: row.service,
            count: row.count,
          })),
        };
      });

      // DGII's certification portal (certification/portal-routes.ts).
      portalRoutes(admin, context);

      // What the mail catcher caught (admin/mail-routes.ts).
      mailRoutes(admin, context);

      admin.get('/exchanges', async () => db.selectFrom('sandbox_exchanges').selectAll().orderBy('id').execute());

      const settings = async () => ({
        processingDelayMs: await processingDelayMs(db),
        maintenanceWindows: await maintenanceWindows(db),
      });

      admin.get('/settings', settings);

      admin.put('/settings', { schema: { body: settingsBody } }, async (request) => {
        const body = request.body as { processingDelayMs?: number; maintenanceWindows?: MaintenanceWindow[] };
        if (body.processingDelayMs !== undefined) await writeSetting(db, 'processing_delay_ms', body.processingDelayMs);
        if (body.maintenanceWindows !== undefined)
          await writeSetting(db, maintenanceWindowsSetting, body.maintenanceWindows);
        return settings();
      });

      admin.post('/reset', async (_request, reply) => {
        for (const table of [
          'sandbox_cert_records',
          'sandbox_cert_inbox',
          'sandbox_cert_postulaciones',
          'sandbox_cert_sets',
          'sandbox_directory_entries',
          'sandbox_documents',
          'sandbox_sequence_uses',
          'sandbox_voided_spans',
          'sandbox_approvals',
          'sandbox_arrivals',
          'sandbox_faults',
          'sandbox_seeds',
          'sandbox_tokens',
          'sandbox_exchanges',
          'sandbox_ranges',
          'sandbox_delegations',
          'sandbox_taxpayers',
          'sandbox_mail',
        ] as const) {
          await db.deleteFrom(table).execute();
        }
        await db
          .deleteFrom('sandbox_settings')
          .where('key', 'in', ['processing_delay_ms', maintenanceWindowsSetting])
          .execute();
        forgetState(db);
        // The counterpart taxpayer is part of the emulator, not of a test's setup: it comes back at once.
        await loadCounterpartIdentity(db, context.clock);
        return reply.code(204).send();
      });

      done();
    },
    { prefix: '/sandbox-admin' },
  );
}

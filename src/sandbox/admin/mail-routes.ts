// What the mail catcher caught (mail/mail-catcher.ts), under /sandbox-admin/mail: the list, one message read back
// (text, html, attachments with their SHA-256), the message as it was sent, and emptying the box.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { SandboxContext } from '../http/context.js';

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { to: { type: 'string', minLength: 1, maxLength: 320 } },
} as const;

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[1-9]\\d{0,9}$' } },
} as const;

const listed = ['id', 'received_at', 'envelope_from', 'recipients', 'subject', 'message_id', 'size'] as const;

export function mailRoutes(admin: FastifyInstance, context: SandboxContext): void {
  const { db } = context;
  const notFound = (id: string) => ({ message: `No message ${id} was caught.` });

  admin.get('/mail', { schema: { querystring: listQuery } }, async (request) => {
    const { to } = request.query as { to?: string };
    let select = db.selectFrom('sandbox_mail').select(listed).orderBy('id', 'desc');
    // Addresses compare without case, as mail servers compare them in practice.
    if (to !== undefined)
      select = select.where(
        sql<boolean>`exists (select 1 from jsonb_array_elements_text(recipients) as r where lower(r) = lower(${to}))`,
      );
    return select.execute();
  });

  admin.get('/mail/:id', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const row = await db.selectFrom('sandbox_mail').selectAll().where('id', '=', Number(id)).executeTakeFirst();
    if (row === undefined) return reply.code(404).send(notFound(id));
    const { raw, ...metadata } = row;
    const { simpleParser } = await import('mailparser'); // loaded when first read: slow to load, seldom needed
    const parsed = await simpleParser(raw, { skipTextLinks: true });
    return {
      ...metadata,
      from: parsed.from?.text ?? null,
      replyTo: parsed.replyTo?.text ?? null,
      to: [parsed.to ?? []].flat().map((group) => group.text),
      text: parsed.text ?? null,
      html: parsed.html === false || parsed.html === undefined ? null : parsed.html,
      attachments: parsed.attachments.map((attachment) => ({
        filename: attachment.filename ?? null,
        contentType: attachment.contentType,
        size: attachment.content.length,
        sha256: createHash('sha256').update(attachment.content).digest('hex'),
      })),
    };
  });

  admin.get('/mail/:id/raw', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const row = await db.selectFrom('sandbox_mail').select('raw').where('id', '=', Number(id)).executeTakeFirst();
    if (row === undefined) return reply.code(404).send(notFound(id));
    return reply.type('message/rfc822').send(row.raw);
  });

  admin.delete('/mail', async (_request, reply) => {
    await db.deleteFrom('sandbox_mail').execute();
    return reply.code(204).send();
  });
}

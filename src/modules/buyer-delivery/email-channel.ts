// For a buyer that is not an electronic receiver (Informe Técnico §8, Figura II: the issuer hands over the printed
// representation), the e-mail every consumer and foreign buyer expects: in Spanish, naming the issuer, the e-NCF, the
// total, the issue date and DGII's consult link (the QR URL), with the printed representation (the company's paper)
// and the signed XML (the archived bytes) attached. One message per document.
import type { Mailer, MailMessage } from '../../platform/mail/index.js';
import type { PrintableDocument } from '../printing/index.js';
import type { ChannelResult } from './receiver-channel.js';

export interface EmailParts {
  printable: PrintableDocument;
  pdf: { bytes: Buffer; filename: string };
  signedXml: Buffer;
  to: string;
  from: { name: string; address: string };
  replyTo: string | null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${String(character.charCodeAt(0))};`);
}

/** The message: the facts in a text part and the same in an HTML part. */
export function composeEmail(parts: EmailParts): MailMessage {
  const { printable } = parts;
  const issuer = printable.issuer.tradeName ?? printable.issuer.legalName;
  const total = printable.totals['MontoTotal'] ?? '';
  const currency = printable.currency?.code ?? 'DOP';
  const facts: [string, string][] = [
    ['Comprobante', `${printable.typeName} ${printable.eNCF}`],
    ['Emisor', `${printable.issuer.legalName} (RNC ${printable.issuer.rnc})`],
    ['Fecha de emisión', printable.issueDate],
    ['Monto total', `${currency} ${total}`],
    ['Código de seguridad', printable.securityCode],
  ];
  const consult = printable.qr.url;
  const text = [
    'Estimado cliente:',
    '',
    `${issuer} le ha emitido un comprobante fiscal electrónico.`,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    'Puede consultarlo en la Dirección General de Impuestos Internos (DGII):',
    consult,
    '',
    'Adjuntamos su representación impresa (PDF) y el comprobante firmado digitalmente (XML).',
  ].join('\n');
  const html = [
    '<!doctype html><html lang="es"><body>',
    '<p>Estimado cliente:</p>',
    `<p>${escapeHtml(issuer)} le ha emitido un comprobante fiscal electrónico.</p>`,
    '<table>',
    ...facts.map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    `<p>Puede consultarlo en la Dirección General de Impuestos Internos (DGII): <a href="${escapeHtml(consult)}">${escapeHtml(consult)}</a></p>`,
    '<p>Adjuntamos su representación impresa (PDF) y el comprobante firmado digitalmente (XML).</p>',
    '</body></html>',
  ].join('');
  return {
    from: parts.from,
    ...(parts.replyTo === null ? {} : { replyTo: parts.replyTo }),
    to: parts.to,
    subject: `${printable.typeName} ${printable.eNCF} de ${issuer}`,
    text,
    html,
    attachments: [
      { filename: parts.pdf.filename, content: parts.pdf.bytes, contentType: 'application/pdf' },
      // The name DGII gives the file: RNCEmisor + eNCF + .xml (research/dgii-protocol.md §9.4).
      {
        filename: `${printable.issuer.rnc}${printable.eNCF}.xml`,
        content: parts.signedXml,
        contentType: 'application/xml',
      },
    ],
  };
}

export async function deliverByEmail(mailer: Mailer, parts: EmailParts): Promise<ChannelResult> {
  const sent = await mailer.send(composeEmail(parts));
  switch (sent.kind) {
    case 'sent':
      return { kind: 'delivered', target: parts.to, reason: null, messageId: sent.messageId };
    case 'transient':
      return { kind: 'failed', target: parts.to, reason: `the mail server did not take it for now: ${sent.detail}` };
    case 'permanent':
      return {
        kind: 'failed',
        target: parts.to,
        reason: `the mail server refused it: ${sent.detail}`,
        final: true,
      };
  }
}

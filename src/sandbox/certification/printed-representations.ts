// Step 5, "Pruebas Simulación Representación Impresa" (research/certification.md §1): one PDF per named slot, eleven
// slots, at most 10 MB in all. The portal only takes the files; DGII's review is step 6 (approved or rejected by
// the operator here, as DGII's staff does it there).
import { maxPrintedBytes, printedSlots } from '../../fiscal/certification/index.js';

export interface PrintedFile {
  slot: string;
  pdfBase64: string;
}

export type PrintedCheck = { ok: true; slots: { slot: string; bytes: number }[] } | { ok: false; message: string };

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function checkPrintedRepresentations(files: readonly PrintedFile[]): PrintedCheck {
  const slots: { slot: string; bytes: number }[] = [];
  let total = 0;
  for (const file of files) {
    if (!(printedSlots as readonly string[]).includes(file.slot))
      return { ok: false, message: `Slot ${file.slot} is not one of the portal's: ${printedSlots.join(', ')}.` };
    if (slots.some((taken) => taken.slot === file.slot))
      return { ok: false, message: `Slot ${file.slot} is given twice.` };
    const compact = file.pdfBase64.replace(/\s+/g, '');
    if (!base64.test(compact)) return { ok: false, message: `Slot ${file.slot}: pdfBase64 is not base64.` };
    const pdf = Buffer.from(compact, 'base64');
    if (!pdf.subarray(0, 5).equals(Buffer.from('%PDF-')))
      return { ok: false, message: `Slot ${file.slot}: the file is not a PDF (it does not start with %PDF-).` };
    total += pdf.length;
    slots.push({ slot: file.slot, bytes: pdf.length });
  }
  const missing = printedSlots.filter((slot) => !slots.some((taken) => taken.slot === slot));
  if (missing.length > 0)
    return { ok: false, message: `The portal asks for one PDF per slot; missing: ${missing.join(', ')}.` };
  if (total > maxPrintedBytes)
    return {
      ok: false,
      message: `The files weigh ${String(total)} bytes; the portal takes at most ${String(maxPrintedBytes)} (10 MB) in all.`,
    };
  return { ok: true, slots };
}

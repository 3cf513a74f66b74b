// The company's branding for the printed representation: what the control plane may set, how it is stored, and what
// the company view and the PDF renderer read back.
import { fail, ok, type Result } from '../../platform/result.js';
import type { PaperFormat, PrintSettings } from '../printing/index.js';
import type { CompanyProfileRow, CompanyRow } from './companies.repo.js';
import { normaliseLogo } from './logo.js';

export interface BrandingInput {
  logoBase64?: string | null;
  defaultFormat?: PaperFormat;
  footerNote?: string | null;
}

export interface BrandingView {
  logo: { sha256: string; width: number; height: number; mediaType: 'image/png' } | null;
  defaultFormat: PaperFormat;
  footerNote: string | null;
}

type BrandingColumns = Pick<
  CompanyRow,
  'print_logo' | 'print_logo_sha256' | 'print_logo_width' | 'print_logo_height' | 'print_format' | 'print_footer'
>;

function logoChanges(given: string | null | undefined): Result<Partial<BrandingColumns>> {
  if (given === undefined) return ok({});
  if (given === null)
    return ok({ print_logo: null, print_logo_sha256: null, print_logo_width: null, print_logo_height: null });
  const logo = normaliseLogo(Buffer.from(given, 'base64'));
  if (!logo.ok) {
    return fail('logo_unusable', logo.message, [
      { pointer: '/branding/logoBase64', in: 'body', code: logo.code, detail: logo.message },
    ]);
  }
  const { png, sha256, width, height } = logo.value;
  return ok({ print_logo: png, print_logo_sha256: sha256, print_logo_width: width, print_logo_height: height });
}

/** The columns a `branding` input changes; a field left out keeps its value, as elsewhere in an update. */
export function brandingChanges(input: BrandingInput | undefined): Result<Partial<BrandingColumns>> {
  if (input === undefined) return ok({});
  const logo = logoChanges(input.logoBase64);
  if (!logo.ok) return logo;
  return ok({
    ...logo.value,
    ...(input.defaultFormat === undefined ? {} : { print_format: input.defaultFormat }),
    ...(input.footerNote === undefined ? {} : { print_footer: input.footerNote }),
  });
}

export function brandingView(row: CompanyProfileRow): BrandingView {
  const { print_logo_sha256: sha256, print_logo_width: width, print_logo_height: height } = row;
  return {
    logo:
      sha256 === null || width === null || height === null ? null : { sha256, width, height, mediaType: 'image/png' },
    defaultFormat: row.print_format,
    footerNote: row.print_footer,
  };
}

export function toPrintSettings(
  row: Pick<BrandingColumns, 'print_logo' | 'print_logo_sha256' | 'print_format' | 'print_footer'>,
): PrintSettings {
  // PostgreSQL reads bytea as a Buffer, PGlite as a Uint8Array: the renderer gets a Buffer either way, uncopied.
  const logo = row.print_logo;
  return {
    logoPng: logo === null || Buffer.isBuffer(logo) ? logo : Buffer.from(logo.buffer, logo.byteOffset, logo.byteLength),
    logoSha256: row.print_logo_sha256,
    defaultFormat: row.print_format,
    footerNote: row.print_footer,
  };
}

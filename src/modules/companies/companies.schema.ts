import { Type, type Static } from 'typebox';
import { ref } from '../../platform/http/schema-ref.js';
import { paperFormats } from '../printing/index.js';
import { capabilities } from './capabilities.js';
import { logoLimits } from './logo.js';

// Lengths follow the e-CF issuer fields they feed (RazonSocialEmisor 150, NombreComercial 150,
// DireccionEmisor 100; municipality and province are DGII's six-digit codes).
const companyFields = {
  legalName: Type.String({ minLength: 1, maxLength: 150 }),
  tradeName: Type.String({ minLength: 1, maxLength: 150 }),
  address: Type.String({ minLength: 1, maxLength: 100 }),
  municipality: Type.String({ pattern: '^\\d{6}$' }),
  province: Type.String({ pattern: '^\\d{6}$' }),
  plan: Type.String({ minLength: 1, maxLength: 64 }),
  capabilities: Type.Array(Type.Enum(capabilities), { uniqueItems: true }),
  certificationEnabled: Type.Boolean(),
  // The service segment of the company's receiver URLs (/{env}/{segment}/fe/...); stored lower-case. Absent: its RNC.
  receiverSegment: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$',
    description:
      'The service segment of the receiver URLs, /{env}/{segment}/fe/... (case-insensitive, kept lower-case); without one, the RNC.',
  }),
};

/** How accepted documents go to their buyers (issue 42); a field left out keeps its value. */
const DeliveryInput = Type.Object(
  {
    automatic: Type.Optional(
      Type.Boolean({
        description:
          'Deliver each document DGII accepts to its buyer by itself (default true); false: only with POST /documentos/:id/entregar.',
      }),
    ),
    senderName: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001F\\u007F<>"]*$' }),
        Type.Null(),
      ]),
    ),
    replyTo: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type DeliveryInput = Static<typeof DeliveryInput>;

const DeliverySettings = Type.Object({
  automatic: Type.Boolean({ description: 'Accepted documents go to their buyers by themselves.' }),
  senderName: Type.Union([Type.String(), Type.Null()], {
    description: "The e-mails' sender name; null: the trade name, else the legal name.",
  }),
  replyTo: Type.Union([Type.String(), Type.Null()], { description: "The e-mails' Reply-To address." }),
});

const PaperFormat = Type.Enum(paperFormats, { description: 'a4, carta (US Letter), or an 80 mm or 58 mm roll.' });

// Base64 of at most logoLimits.maxBytes: four characters for every three bytes, padded.
const maxLogoBase64Length = Math.ceil(logoLimits.maxBytes / 3) * 4;

/** What the printed representation (RI PDF) shows of the company; a field left out keeps its value. */
const BrandingInput = Type.Object(
  {
    logoBase64: Type.Optional(
      Type.Union([
        Type.String({
          minLength: 4,
          maxLength: maxLogoBase64Length,
          pattern: '^[A-Za-z0-9+/]+={0,2}$',
          contentEncoding: 'base64',
          description: `PNG or JPEG, base64, at most ${logoLimits.maxBytes / 1024} KiB, ${logoLimits.minSide} × ${logoLimits.minSide} to ${logoLimits.maxWidth} × ${logoLimits.maxHeight} px (not resized); kept as an 8-bit PNG. null removes it.`,
        }),
        Type.Null(),
      ]),
    ),
    defaultFormat: Type.Optional(PaperFormat),
    footerNote: Type.Optional(
      Type.Union([
        // Printed small above the footer: no control characters but the line feed.
        Type.String({ minLength: 1, maxLength: 300, pattern: '^[^\\u0000-\\u0009\\u000B-\\u001F\\u007F]*$' }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

export const CompanyId = Type.String({ pattern: '^cmp_[A-Za-z0-9]{1,40}$' });

export const CompanyProvision = Type.Object(
  {
    rnc: Type.String({
      pattern: '^(\\d{9}|\\d{11})$',
      description: 'RNC (9 digits) or cédula (11 digits); check digit verified.',
    }),
    legalName: companyFields.legalName,
    tradeName: Type.Optional(companyFields.tradeName),
    address: Type.Optional(companyFields.address),
    municipality: Type.Optional(companyFields.municipality),
    province: Type.Optional(companyFields.province),
    plan: companyFields.plan,
    capabilities: companyFields.capabilities,
    certificationEnabled: Type.Optional(companyFields.certificationEnabled),
    receiverSegment: Type.Optional(companyFields.receiverSegment),
    branding: Type.Optional(BrandingInput),
    delivery: Type.Optional(DeliveryInput),
  },
  { additionalProperties: false },
);
export type CompanyProvision = Static<typeof CompanyProvision>;

export const CompanyUpdate = Type.Object(
  {
    companyId: CompanyId,
    legalName: Type.Optional(companyFields.legalName),
    tradeName: Type.Optional(Type.Union([companyFields.tradeName, Type.Null()])),
    address: Type.Optional(Type.Union([companyFields.address, Type.Null()])),
    municipality: Type.Optional(Type.Union([companyFields.municipality, Type.Null()])),
    province: Type.Optional(Type.Union([companyFields.province, Type.Null()])),
    plan: Type.Optional(companyFields.plan),
    capabilities: Type.Optional(companyFields.capabilities),
    certificationEnabled: Type.Optional(companyFields.certificationEnabled),
    receiverSegment: Type.Optional(Type.Union([companyFields.receiverSegment, Type.Null()])),
    branding: Type.Optional(BrandingInput),
    delivery: Type.Optional(DeliveryInput),
  },
  { additionalProperties: false },
);
export type CompanyUpdate = Static<typeof CompanyUpdate>;

export const PermissionsChange = Type.Object(
  {
    companyId: CompanyId,
    permissions: Type.Union([Type.Literal('current'), Type.Literal('suspended')]),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type PermissionsChange = Static<typeof PermissionsChange>;

export const CompanySuspension = Type.Object(
  { companyId: CompanyId, reason: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
);
export type CompanySuspension = Static<typeof CompanySuspension>;

export const CertificateInstall = Type.Object(
  {
    companyId: CompanyId,
    p12Base64: Type.String({
      minLength: 4,
      maxLength: 200_000,
      contentEncoding: 'base64',
      description: 'The .p12/.pfx file, base64.',
    }),
    password: Type.String({ maxLength: 256 }),
  },
  { additionalProperties: false },
);
export type CertificateInstall = Static<typeof CertificateInstall>;

export const CertificateSummary = Type.Object(
  {
    id: Type.String(),
    subject: Type.String(),
    issuer: Type.String(),
    serialNumber: Type.String(),
    notBefore: Type.String({ format: 'date-time' }),
    notAfter: Type.String({ format: 'date-time' }),
    fingerprintSha256: Type.String(),
  },
  { $id: 'CertificateSummary' },
);
export type CertificateSummary = Static<typeof CertificateSummary>;

export const Company = Type.Object(
  {
    id: Type.String(),
    rnc: Type.String(),
    legalName: Type.String(),
    tradeName: Type.Union([Type.String(), Type.Null()]),
    address: Type.Union([Type.String(), Type.Null()]),
    municipality: Type.Union([Type.String(), Type.Null()]),
    province: Type.Union([Type.String(), Type.Null()]),
    permissions: Type.Union([Type.Literal('current'), Type.Literal('suspended')]),
    suspendedReason: Type.Union([Type.String(), Type.Null()]),
    certificationEnabled: Type.Boolean(),
    certificate: Type.Union([ref(CertificateSummary), Type.Null()]),
    branding: Type.Object({
      logo: Type.Union([
        Type.Object({
          sha256: Type.String({ description: 'Of the stored PNG, as normalised.' }),
          width: Type.Integer(),
          height: Type.Integer(),
          mediaType: Type.Literal('image/png'),
        }),
        Type.Null(),
      ]),
      defaultFormat: PaperFormat,
      footerNote: Type.Union([Type.String(), Type.Null()]),
    }),
    delivery: DeliverySettings,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Company' },
);
export type Company = Static<typeof Company>;

export const CapabilityAccess = Type.Object(
  {
    entitled: Type.Boolean({ description: 'The plan includes this capability.' }),
    allowed: Type.Boolean({
      description: 'Entitled, permissions current, and the key holds a scope that exercises it.',
    }),
    scopes: Type.Array(Type.String(), { description: "The key's effective scopes that exercise this capability." }),
  },
  { $id: 'CapabilityAccess' },
);

export const CompanyView = Type.Object(
  {
    company: ref(Company),
    entitlement: Type.Object({ plan: Type.String(), capabilities: Type.Array(Type.String()) }),
    access: Type.Record(Type.String(), ref(CapabilityAccess)),
    environment: Type.Union([Type.Literal('TEST'), Type.Literal('CERT'), Type.Literal('PRODUCTION')]),
    scopes: Type.Array(Type.String(), { description: 'Scopes granted to the key.' }),
    effectiveScopes: Type.Array(Type.String(), { description: 'Granted plus derived scopes (SPEC §5).' }),
  },
  { $id: 'CompanyView' },
);

export const companySchemas = [CertificateSummary, Company, CapabilityAccess, CompanyView];

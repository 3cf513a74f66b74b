// The company's branding for the printed representation, set by the control plane (company.updated and
// company.provisioned): the logo normalised once to an 8-bit PNG, the default paper format and the footer note.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { assertFieldError } from './support/assert-problem.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';

interface Branding {
  logo: { sha256: string; width: number; height: number; mediaType: string } | null;
  defaultFormat: string;
  footerNote: string | null;
}

/** RGBA pixels that vary in every channel, alpha included. */
function pixels(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 13 + (i >> 9)) & 0xff;
  return data;
}

function pngOf(width: number, height: number, data = pixels(width, height)): Buffer {
  const png = new PNG({ width, height });
  png.data = data;
  return PNG.sync.write(png);
}

function jpegOf(width: number, height: number): Buffer {
  return jpeg.encode({ width, height, data: pixels(width, height) }, 85).data;
}

function assertOutcome(response: LightMyRequestResponse, outcome: 'applied' | 'unchanged'): void {
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.json<{ data: { outcome: string } }>().data.outcome, outcome);
}

describe('company branding', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });

  after(async () => {
    await t.close();
  });

  async function newCompany(overrides: Record<string, unknown> = {}) {
    const companyId = await t.provisionCompany(overrides);
    const { apiKey } = await t.issueKey(companyId, ['documents:read']);
    return { companyId, apiKey };
  }

  function setBranding(companyId: string, branding: Record<string, unknown>, eventId?: string) {
    return t.sendEvent('company.updated', { companyId, branding }, eventId);
  }

  async function brandingView(apiKey: string): Promise<{ branding: Branding; body: string }> {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/empresa', headers: { 'x-api-key': apiKey } });
    assert.equal(response.statusCode, 200, response.body);
    return {
      branding: response.json<{ data: { company: { branding: Branding } } }>().data.company.branding,
      body: response.body,
    };
  }

  async function storedLogo(companyId: string) {
    return t.application.database.db
      .selectFrom('companies')
      .select(['print_logo', 'print_logo_sha256', 'print_logo_width', 'print_logo_height'])
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow();
  }

  /** The stored logo is a PNG of the size sent, and the view and the renderer's read both name it by its sha256. */
  async function assertLogoStored(companyId: string, apiKey: string, width: number, height: number): Promise<Buffer> {
    const row = await storedLogo(companyId);
    assert.ok(row.print_logo !== null, 'a logo is stored');
    const bytes = Buffer.from(row.print_logo);
    const read = PNG.sync.read(bytes);
    assert.deepEqual([read.width, read.height], [width, height]);
    assert.deepEqual([bytes[24], bytes[25], bytes[28]], [8, 2, 0], '8-bit RGB (flattened on white), not interlaced');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    assert.equal(row.print_logo_sha256, sha256);

    const { branding, body } = await brandingView(apiKey);
    assert.deepEqual(branding.logo, { sha256, width, height, mediaType: 'image/png' });
    assert.doesNotMatch(body, new RegExp(bytes.toString('base64').slice(0, 40).replace(/[+/]/g, '\\$&')));

    const printing = await t.application.services.companies.printSettingsOf(companyId);
    assert.equal(printing.logoSha256, sha256);
    assert.ok(printing.logoPng?.equals(bytes));
    return bytes;
  }

  it('shows no logo, A4 and no footer note for a company never branded', async () => {
    const { companyId, apiKey } = await newCompany();
    assert.deepEqual((await brandingView(apiKey)).branding, { logo: null, defaultFormat: 'a4', footerNote: null });
    assert.deepEqual(await t.application.services.companies.printSettingsOf(companyId), {
      logoPng: null,
      logoSha256: null,
      defaultFormat: 'a4',
      footerNote: null,
    });
  });

  it('stores a PNG logo normalised, named by the sha256 of the stored bytes', async () => {
    const { companyId, apiKey } = await newCompany();
    const opaque = pixels(240, 80);
    for (let i = 3; i < opaque.length; i += 4) opaque[i] = 255;
    assertOutcome(await setBranding(companyId, { logoBase64: pngOf(240, 80, opaque).toString('base64') }), 'applied');
    const stored = await assertLogoStored(companyId, apiKey, 240, 80);
    // Opaque pixels are kept exactly (transparency is flattened on white: src/modules/companies/logo.test.ts).
    assert.deepEqual(PNG.sync.read(stored).data, opaque);
  });

  it('stores a JPEG logo as a PNG of the same size', async () => {
    const { companyId, apiKey } = await newCompany();
    assertOutcome(await setBranding(companyId, { logoBase64: jpegOf(300, 100).toString('base64') }), 'applied');
    await assertLogoStored(companyId, apiKey, 300, 100);
  });

  it('reports the same logo sent again as unchanged, and a different one as applied', async () => {
    const { companyId, apiKey } = await newCompany();
    const logo = { logoBase64: pngOf(64, 64).toString('base64') };
    assertOutcome(await setBranding(companyId, logo), 'applied');
    const first = await storedLogo(companyId);
    assertOutcome(await setBranding(companyId, logo), 'unchanged');
    assert.deepEqual(await storedLogo(companyId), first);

    assertOutcome(await setBranding(companyId, { logoBase64: jpegOf(64, 64).toString('base64') }), 'applied');
    assert.notEqual((await storedLogo(companyId)).print_logo_sha256, first.print_logo_sha256);
    await assertLogoStored(companyId, apiKey, 64, 64);
  });

  it('removes the logo with logoBase64: null, and reports removing it again as unchanged', async () => {
    const { companyId, apiKey } = await newCompany();
    assertOutcome(await setBranding(companyId, { logoBase64: pngOf(32, 32).toString('base64') }), 'applied');
    assertOutcome(await setBranding(companyId, { logoBase64: null }), 'applied');
    assert.deepEqual(await storedLogo(companyId), {
      print_logo: null,
      print_logo_sha256: null,
      print_logo_width: null,
      print_logo_height: null,
    });
    assert.equal((await brandingView(apiKey)).branding.logo, null);
    assert.equal((await t.application.services.companies.printSettingsOf(companyId)).logoPng, null);
    assertOutcome(await setBranding(companyId, { logoBase64: null }), 'unchanged');
  });

  const refused: [string, () => Buffer, string, RegExp][] = [
    [
      'a GIF',
      () => Buffer.from('GIF89a\x20\x00\x20\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00;', 'latin1'),
      'logo_media_type',
      /PNG or a JPEG/,
    ],
    ['bytes that are no image', () => Buffer.from(randomUUID().repeat(8)), 'logo_media_type', /PNG or a JPEG/],
    ['a PNG cut short', () => pngOf(100, 50).subarray(0, 120), 'logo_unreadable', /not a readable PNG/],
    [
      'a 2000 × 100 image',
      () => pngOf(2000, 100, Buffer.alloc(2000 * 100 * 4)),
      'logo_dimensions',
      /2000 × 100 px; at most 1200 × 600 px/,
    ],
    [
      'a PNG padded to one byte over 256 KiB',
      () => Buffer.concat([pngOf(16, 16), Buffer.alloc(256 * 1024 + 1 - pngOf(16, 16).length)]),
      'logo_too_heavy',
      /262145 bytes; at most 262144/,
    ],
  ];
  for (const [name, bytes, code, detail] of refused) {
    it(`answers 422 logo_unusable naming /data/branding/logoBase64 for ${name}, keeping the logo it had`, async () => {
      const { companyId } = await newCompany();
      assertOutcome(await setBranding(companyId, { logoBase64: pngOf(20, 20).toString('base64') }), 'applied');
      const before = await storedLogo(companyId);
      const eventId = `evt_${randomUUID()}`;
      const error = assertFieldError(
        await setBranding(companyId, { logoBase64: bytes().toString('base64'), footerNote: 'no aplicada' }, eventId),
        422,
        'logo_unusable',
        '/data/branding/logoBase64',
      );
      assert.equal(error.code, code);
      assert.match(error.detail, detail);
      assert.deepEqual(await storedLogo(companyId), before);
      assert.equal((await t.application.services.companies.printSettingsOf(companyId)).footerNote, null);
      const recorded = await t.application.database.db
        .selectFrom('cloud_messages')
        .select('id')
        .where('id', '=', eventId)
        .executeTakeFirst();
      assert.equal(recorded, undefined, 'a refused event leaves no record of its id');
    });
  }

  it('answers 400 naming /data/branding/logoBase64 for base64 of more than 256 KiB and 2 bytes, or text that is not base64', async () => {
    const { companyId } = await newCompany();
    const tooLong = Buffer.alloc(256 * 1024 + 3).toString('base64');
    assertFieldError(
      await setBranding(companyId, { logoBase64: tooLong }),
      400,
      'validation_failed',
      '/data/branding/logoBase64',
    );
    assertFieldError(
      await setBranding(companyId, { logoBase64: 'not base64!' }),
      400,
      'validation_failed',
      '/data/branding/logoBase64',
    );
  });

  it('round-trips defaultFormat and footerNote through GET /api/v1/empresa, and clears the note with null', async () => {
    const { companyId, apiKey } = await newCompany();
    const note = 'Gracias por su compra.\nDevoluciones dentro de 30 días con su factura.';
    assertOutcome(await setBranding(companyId, { defaultFormat: '80mm', footerNote: note }), 'applied');
    assert.deepEqual((await brandingView(apiKey)).branding, { logo: null, defaultFormat: '80mm', footerNote: note });
    assertOutcome(await setBranding(companyId, { defaultFormat: '80mm', footerNote: note }), 'unchanged');

    assertOutcome(await setBranding(companyId, { defaultFormat: 'carta', footerNote: null }), 'applied');
    assert.deepEqual((await brandingView(apiKey)).branding, { logo: null, defaultFormat: 'carta', footerNote: null });
    const printing = await t.application.services.companies.printSettingsOf(companyId);
    assert.deepEqual([printing.defaultFormat, printing.footerNote], ['carta', null]);
  });

  it('keeps the branding fields an update leaves out', async () => {
    const { companyId, apiKey } = await newCompany();
    assertOutcome(
      await setBranding(companyId, { logoBase64: pngOf(40, 40).toString('base64'), defaultFormat: '58mm' }),
      'applied',
    );
    assertOutcome(await setBranding(companyId, { footerNote: 'Nota' }), 'applied');
    assertOutcome(await t.sendEvent('company.updated', { companyId, legalName: 'Otra Razón SRL' }), 'applied');
    const { branding } = await brandingView(apiKey);
    assert.deepEqual([branding.logo?.width, branding.defaultFormat, branding.footerNote], [40, '58mm', 'Nota']);
  });

  // Schema failures are 400 validation_failed, as for every other field of an event (control-plane.test.ts).
  const invalid: [string, Record<string, unknown>, string][] = [
    ['a paper format not offered', { defaultFormat: 'a5' }, '/data/branding/defaultFormat'],
    ['an empty footer note', { footerNote: '' }, '/data/branding/footerNote'],
    ['a footer note of 301 characters', { footerNote: 'x'.repeat(301) }, '/data/branding/footerNote'],
    ['a footer note with a control character', { footerNote: 'uno\u0007dos' }, '/data/branding/footerNote'],
    ['an unknown branding field', { accentColour: '#ff0000' }, '/data/branding/accentColour'],
  ];
  for (const [name, branding, pointer] of invalid) {
    it(`answers 400 naming ${pointer} for ${name}`, async () => {
      const { companyId } = await newCompany();
      assertFieldError(await setBranding(companyId, branding), 400, 'validation_failed', pointer);
    });
  }

  it('takes branding when the company is provisioned, and keeps it when provisioned again without', async () => {
    const logo = pngOf(120, 40).toString('base64');
    const provisioning = {
      rnc: nextRnc(),
      legalName: 'Marca Registrada SRL',
      plan: 'pro',
      capabilities: ['issuing'],
    };
    const first = await t.sendEvent('company.provisioned', {
      ...provisioning,
      branding: { logoBase64: logo, defaultFormat: 'carta', footerNote: 'Pie' },
    });
    assertOutcome(first, 'applied');
    const companyId = first.json<{ data: { companyId: string } }>().data.companyId;
    const { apiKey } = await t.issueKey(companyId, ['documents:read']);
    await assertLogoStored(companyId, apiKey, 120, 40);
    assertOutcome(await t.sendEvent('company.provisioned', provisioning), 'unchanged');
    const { branding } = await brandingView(apiKey);
    assert.deepEqual([branding.logo?.width, branding.defaultFormat, branding.footerNote], [120, 'carta', 'Pie']);
  });
});

describe('company branding on the embedded database (PGlite)', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ embedded: true });
  });

  after(async () => {
    await t.close();
  });

  it('reads the logo back as a Buffer and compares it by content (PGlite reads bytea as a Uint8Array)', async () => {
    const companyId = await t.provisionCompany();
    const update = { companyId, branding: { logoBase64: pngOf(48, 24).toString('base64') } };
    assertOutcome(await t.sendEvent('company.updated', update), 'applied');
    assertOutcome(await t.sendEvent('company.updated', update), 'unchanged');
    const printing = await t.application.services.companies.printSettingsOf(companyId);
    assert.ok(Buffer.isBuffer(printing.logoPng));
    assert.equal(createHash('sha256').update(printing.logoPng).digest('hex'), printing.logoSha256);
    assert.deepEqual([PNG.sync.read(printing.logoPng).width, PNG.sync.read(printing.logoPng).height], [48, 24]);
  });
});

// Valid and invalid documents against the official XSDs, each verdict checked a second time with the real
// `xmllint --schema` (libxml2's own CLI, a different build from the wasm one) over the same repaired schemas.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { compileSchemaSet, kindOfSchemaFile, repairSchema, type SchemaKind } from '../../fiscal/xsd/index.js';
import {
  ecf31WithItems,
  ecfNote,
  readDgiiSample,
  readOfficialXsds,
  validEcf31,
} from '../../../test/support/dgii-files.js';
import { skipUnlessTools } from '../../../test/support/tools.js';

interface Case {
  name: string;
  kind: SchemaKind;
  xml: string;
  /** Path of the first finding; undefined: the document is valid. */
  path?: string;
}

const ecf31 = validEcf31();
const acecfBody = readDgiiSample('commercial_approval_response.xml');
const acecf = acecfBody.slice(acecfBody.indexOf('<?xml'), acecfBody.lastIndexOf('</ACECF>') + '</ACECF>'.length);
const swap = (xml: string, from: string | RegExp, to: string) => {
  const changed = xml.replace(from, to);
  if (changed === xml) throw new Error(`the fixture does not contain ${String(from)}`);
  return changed;
};

const cases: Case[] = [
  { name: 'the e-CF 31 sample without TotalPaginas', kind: 'e-CF-31', xml: ecf31 },
  { name: 'an e-CF 31 with 200 items', kind: 'e-CF-31', xml: ecf31WithItems(200) },
  { name: 'an e-CF 33 with a ResponsablePago', kind: 'e-CF-33', xml: ecfNote(33, 'Juan Perez') },
  { name: 'an e-CF 34 with a ResponsablePago', kind: 'e-CF-34', xml: ecfNote(34, 'María Núñez, hijo') },
  { name: 'the ARECF sample', kind: 'ARECF', xml: readDgiiSample('customer_receipt.xml') },
  { name: 'the seed sample', kind: 'Semilla', xml: readDgiiSample('seed-test_140133.xml') },
  {
    name: 'the ACECF with a two-decimal MontoTotal',
    kind: 'ACECF',
    xml: swap(acecf, '<MontoTotal>35400<', '<MontoTotal>35400.00<'),
  },
  {
    name: 'an amount with a trailing zero past two decimals (not significant)',
    kind: 'e-CF-31',
    xml: swap(ecf31, '<MontoTotal>637.2<', '<MontoTotal>637.20<'),
  },

  {
    name: 'TotalPaginas = 1',
    kind: 'e-CF-31',
    xml: readDgiiSample('130359334E310000008928.xml'),
    path: '/ECF/Encabezado/IdDoc/TotalPaginas',
  },
  {
    name: 'the simulator ACECF, MontoTotal without decimals',
    kind: 'ACECF',
    xml: acecf,
    path: '/ACECF/DetalleAprobacionComercial/MontoTotal',
  },
  {
    name: 'eNCF before TipoeCF (wrong order)',
    kind: 'e-CF-31',
    xml: swap(
      ecf31,
      '<TipoeCF>31</TipoeCF><eNCF>E310000008928</eNCF>',
      '<eNCF>E310000008928</eNCF><TipoeCF>31</TipoeCF>',
    ),
    path: '/ECF/Encabezado/IdDoc/eNCF',
  },
  {
    name: 'an 8-digit RNCEmisor (pattern)',
    kind: 'e-CF-31',
    xml: swap(ecf31, '<RNCEmisor>130359334<', '<RNCEmisor>13035933<'),
    path: '/ECF/Encabezado/Emisor/RNCEmisor',
  },
  {
    name: 'a MontoTotal of 19 digits',
    kind: 'e-CF-31',
    xml: swap(ecf31, '<MontoTotal>637.2<', '<MontoTotal>12345678901234567.89<'),
    path: '/ECF/Encabezado/Totales/MontoTotal',
  },
  {
    name: 'a MontoTotal with 3 fraction digits',
    kind: 'e-CF-31',
    xml: swap(ecf31, '<MontoTotal>637.2<', '<MontoTotal>637.125<'),
    path: '/ECF/Encabezado/Totales/MontoTotal',
  },
  {
    name: 'TipoeCF 35 in an e-CF 31 (enumeration)',
    kind: 'e-CF-31',
    xml: swap(ecf31, '<TipoeCF>31<', '<TipoeCF>35<'),
    path: '/ECF/Encabezado/IdDoc/TipoeCF',
  },
  {
    name: 'no RazonSocialEmisor (mandatory, mid-sequence)',
    kind: 'e-CF-31',
    xml: swap(ecf31, /<RazonSocialEmisor>[^<]*<\/RazonSocialEmisor>/, ''),
    path: '/ECF/Encabezado/Emisor/DireccionEmisor',
  },
  {
    name: 'no FechaEmision (mandatory, last of Emisor)',
    kind: 'e-CF-31',
    xml: swap(ecf31, /<FechaEmision>[^<]*<\/FechaEmision>/, ''),
    path: '/ECF/Encabezado/Emisor',
  },
  {
    name: 'an element the schema does not know',
    kind: 'e-CF-31',
    xml: swap(ecf31, '<MontoNoFacturable>', '<Propina>1</Propina><MontoNoFacturable>'),
    path: '/ECF/Encabezado/Totales/Propina',
  },
  {
    name: 'an ARECF validated as an e-CF 31',
    kind: 'e-CF-31',
    xml: readDgiiSample('customer_receipt.xml'),
    path: '/ARECF',
  },
  {
    name: 'a ResponsablePago with digits (Alfa20Type)',
    kind: 'e-CF-33',
    xml: ecfNote(33, 'Juan Perez 2'),
    path: '/ECF/Encabezado/Comprador/ResponsablePago',
  },
  { name: 'an item of line 1,001', kind: 'e-CF-31', xml: ecf31WithItems(1001), path: '/ECF/DetallesItems/Item[1001]' },
];

const files = readOfficialXsds();
const set = compileSchemaSet(files);
after(() => {
  set.dispose();
});

describe('XSD verdicts', () => {
  for (const { name, kind, xml, path } of cases) {
    it(`${path === undefined ? 'accepts' : 'refuses'} ${name}`, () => {
      const findings = set.validate(kind, xml);
      if (path === undefined) {
        assert.deepEqual(findings, []);
        return;
      }
      assert.ok(findings.length > 0, 'expected a finding');
      assert.equal(
        findings[0]?.path,
        path,
        findings.map((finding) => `${finding.path}: ${finding.message}`).join('\n'),
      );
      for (const finding of findings) {
        assert.equal(finding.code, 'xsd_invalid');
        assert.doesNotMatch(finding.message, /\n|\[facet/);
      }
    });
  }
});

describe('the same verdicts from xmllint --schema', { skip: skipUnlessTools('xmllint') }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-xsd-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const schemaPath = new Map<SchemaKind, string>();
  for (const [fileName, text] of files) {
    const kind = kindOfSchemaFile(fileName);
    if (kind === undefined) continue;
    const path = join(dir, `${kind}.xsd`);
    writeFileSync(path, repairSchema(fileName, text).text);
    schemaPath.set(kind, path);
  }

  cases.forEach(({ name, kind, xml }, i) => {
    it(`agrees on ${name}`, () => {
      const docPath = join(dir, `doc-${i}.xml`);
      writeFileSync(docPath, xml);
      const run = spawnSync('xmllint', ['--noout', '--schema', schemaPath.get(kind) ?? '', docPath], {
        encoding: 'utf8',
      });
      // 0: valid; 3: invalid against the schema. Anything else (5: the schema did not compile) is not a verdict.
      assert.ok(run.status === 0 || run.status === 3, `xmllint exited ${String(run.status)}: ${run.stderr}`);
      const findings = set.validate(kind, xml);
      assert.equal(findings.length === 0, run.status === 0, `xmllint said: ${run.stderr}`);
      const element = findings[0]?.path
        .split('/')
        .pop()
        ?.replace(/\[\d+\]$/, '');
      if (element !== undefined) assert.match(run.stderr, new RegExp(`'${element}'`));
    });
  });
});

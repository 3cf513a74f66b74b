import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanMessage } from './xsd-finding.js';

describe('cleanMessage', () => {
  it('drops the facet tag and the trailing newline', () => {
    assert.equal(
      cleanMessage("Element 'TotalPaginas': [facet 'minExclusive'] The value '1' must be greater than '1'.\n"),
      "Element 'TotalPaginas': The value '1' must be greater than '1'.",
    );
  });

  it('shortens a long enumeration and says how long it was', () => {
    const values = Array.from({ length: 40 }, (_, i) => `'${i}'`).join(', ');
    assert.equal(
      cleanMessage(
        `Element 'Municipio': [facet 'enumeration'] The value 'x' is not an element of the set {${values}}.\n`,
      ),
      "Element 'Municipio': The value 'x' is not an element of the set {'0', '1', '2', '3', '4', '5', '6', '7', … (40 values)}.",
    );
  });

  it('names XML Schema types with xs: and drops other namespaces', () => {
    assert.equal(
      cleanMessage(
        "Element '{http://www.w3.org/2000/09/xmldsig#}Signature': 'x' is not a valid value of the atomic type '{http://www.w3.org/2001/XMLSchema}decimal'.",
      ),
      "Element 'Signature': 'x' is not a valid value of the atomic type 'xs:decimal'.",
    );
  });
});

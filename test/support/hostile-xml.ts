// XML shaped to make a parser quadratic or recursive, each filling the 5 MB limit, for the hostile-input tests and
// the event-loop bench (bench/hostile-xml.bench.ts). Built when asked for, and by the tests in the process that sends
// them (stall-probe.ts): building 5 MB strings in the server's process leaves garbage it collects while being timed.

/** Room under the 5 MB limit for the XML declaration and the root element. */
const budget = 5 * 1024 * 1024 - 4_096;

/** `unit` repeated to fill the 5 MB limit, between `head` and `tail`. */
function filled(head: string, unit: string, tail: string): string {
  return head + unit.repeat(Math.floor((budget - head.length - tail.length) / unit.length)) + tail;
}

/** Attributes (or namespace declarations) on one element, to fill the 5 MB limit. */
function manyAttributes(attribute: (i: number) => string): string {
  const parts: string[] = [];
  for (let length = 0, i = 0; length < budget - 16; i++) {
    const part = ` ${attribute(i)}`;
    parts.push(part);
    length += part.length;
  }
  return `<ECF${parts.join('')}/>`;
}

/** What the untrusted-XML screen refuses in one pass (fiscal/xml/xml-shape.ts). */
export const refusedXmlShapes: Readonly<Record<string, () => string>> = {
  'processing instructions before the root': () =>
    filled('<?xml version="1.0" encoding="utf-8"?>', '<?p x?>', '<ECF/>'),
  'elements nested 750,000 deep': () => {
    const depth = Math.floor(budget / 7);
    return `<ECF>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</ECF>`;
  },
  'comments after the root': () => filled('<ECF/>', '<!--c-->', ''),
  'attributes on one element': () => manyAttributes((i) => `a${i}="1"`),
  'namespace declarations on one element': () => manyAttributes((i) => `xmlns:n${i}="urn:${i}"`),
  // xmldom reports each extra root and keeps parsing, re-walking the top level for every one.
  'a million roots': () => filled('<ECF/>', '<b/>', ''),
  // End tags that close nothing: xmldom nests past them instead of stopping.
  'end tags that close nothing': () => filled('<ECF>', '<a></x>', '</ECF>'),
};

/** 5 MB of JSON that JSON.parse takes about a second over: 1.25 million empty objects. */
export function manyJsonObjects(): string {
  return `[${Array.from({ length: 1_250_000 }, () => '{}').join(',')}]`;
}

/** What the screen admits (every parser is linear on them) but costs the general parsers seconds at 5 MB. */
export const admittedXmlShapes: Readonly<Record<string, () => string>> = {
  '1.3 million empty elements side by side': () => filled('<ECF>', '<a/>', '</ECF>'),
  '650,000 elements with text side by side': () => filled('<ECF>', '<a>1</a>', '</ECF>'),
};

// An incremental XML scanner for the parts of an xlsx: text goes in chunk by chunk and elements come out as calls,
// so a sheet of a million rows is never held whole. Hand-written because fast-xml-parser, which the project uses for
// whole documents, does not stream. It checks what makes a part well formed in practice (tags nest and close, one
// root, attributes quoted and unique, references known) and refuses every markup declaration (`<!DOCTYPE`,
// `<!ENTITY`, ...): the XML comes from users, and without a DTD no entity can expand or reach outside the file.

export interface XmlHandler {
  /** An element starts; its name without namespace prefix, its attributes with their names as written. */
  open(name: string, attributes: ReadonlyMap<string, string>): void;
  /** An element ends (right after `open` for `<empty/>`). */
  close?(name: string): void;
  /** Character data inside the root element, references decoded; one text node may come in several calls. */
  text?(text: string): void;
}

// `>` may stand inside a quoted attribute value, so a tag ends at the first `>` outside quotes.
const tagEnd = /(?:[^"'>]|"[^"]*"|'[^']*')*>/y;
const elementName = /^[A-Za-z_:\u00C0-\uFFFD][\w.:\u00B7-\uFFFD-]*/;
const attribute = /\s+([A-Za-z_:][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const reference = /&(?:#x([0-9A-Fa-f]+)|#([0-9]+)|(amp|lt|gt|quot|apos));|&/g;
const predefined: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export class XmlScanner {
  private pending = '';
  /** Scan again once this much text waits: a long token arriving in many small chunks is rescanned O(log n) times. */
  private waitFor = 0;
  private started = false;
  private rootSeen = false;
  private readonly openElements: string[] = [];

  constructor(
    private readonly handler: XmlHandler,
    private readonly fail: (detail: string) => Error,
  ) {}

  write(chunk: string): void {
    if (!this.started) {
      this.started = true;
      if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
    }
    this.pending += chunk;
    if (this.pending.length >= this.waitFor) this.scan(false);
  }

  end(): void {
    this.scan(true);
    if (this.pending !== '') throw this.malformed('it ends inside a tag');
    if (!this.rootSeen || this.openElements.length > 0) throw this.malformed('it ends before its root element closes');
  }

  private scan(final: boolean): void {
    const text = this.pending;
    let at = 0;
    for (;;) {
      const lt = text.indexOf('<', at);
      if (lt === -1) {
        if (final) {
          this.characters(text.slice(at));
          at = text.length;
        }
        break;
      }
      if (lt > at) this.characters(text.slice(at, lt));
      at = lt;
      const next = this.markup(text, lt, final);
      if (next === -1) break;
      at = next;
    }
    this.pending = text.slice(at);
    this.waitFor = 2 * this.pending.length;
  }

  /** Handles the markup starting at `lt`; returns where it ends, or -1 when it is not all here yet. */
  private markup(text: string, lt: number, final: boolean): number {
    if (text.startsWith('<!--', lt)) return after(text.indexOf('-->', lt + 4), 3);
    if (text.startsWith('<?', lt)) return after(text.indexOf('?>', lt + 2), 2);
    if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt + 9);
      if (end !== -1) this.characters(text.slice(lt + 9, end), true);
      return after(end, 3);
    }
    if (text.startsWith('<!', lt)) {
      if (!final && text.length - lt < 9) return -1; // may yet become `<!--` or `<![CDATA[`
      throw this.fail('declares a DTD or an entity (<!...), which untrusted XML may not');
    }
    tagEnd.lastIndex = lt + 1;
    if (tagEnd.exec(text) === null) return -1;
    this.tag(text.slice(lt + 1, tagEnd.lastIndex - 1));
    return tagEnd.lastIndex;
  }

  private tag(body: string): void {
    if (body.startsWith('/')) {
      const name = body.slice(1).trimEnd();
      const expected = this.openElements.pop();
      if (name !== expected)
        throw this.malformed(`</${name}> closes ${expected === undefined ? 'nothing' : `<${expected}>`}`);
      this.handler.close?.(localName(name));
      return;
    }
    const selfClosing = body.endsWith('/');
    const inner = selfClosing ? body.slice(0, -1) : body;
    const name = elementName.exec(inner)?.[0];
    if (name === undefined) throw this.malformed(`<${body.slice(0, 20)}> is not a tag`);
    if (this.openElements.length === 0 && this.rootSeen) throw this.malformed('it has a second root element');
    const attributes = new Map<string, string>();
    for (let at = name.length; at < inner.length;) {
      attribute.lastIndex = at;
      const match = attribute.exec(inner);
      if (match === null) {
        if (inner.slice(at).trim() !== '') throw this.malformed(`<${name}> has a malformed attribute`);
        break;
      }
      const [, key = '', double, single] = match;
      if (attributes.has(key)) throw this.malformed(`<${name}> repeats the attribute ${key}`);
      attributes.set(key, this.decode(double ?? single ?? ''));
      at = attribute.lastIndex;
    }
    this.rootSeen = true;
    this.handler.open(localName(name), attributes);
    if (selfClosing) this.handler.close?.(localName(name));
    else this.openElements.push(name);
  }

  private characters(raw: string, cdata = false): void {
    if (this.openElements.length === 0) {
      if (raw.trim() !== '') throw this.malformed('it has text outside its root element');
      return;
    }
    const text = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw; // XML 1.0 §2.11 end-of-line handling
    this.handler.text?.(cdata ? text : this.decode(text));
  }

  private decode(text: string): string {
    if (!text.includes('&')) return text;
    return text.replace(reference, (match: string, hex?: string, decimal?: string, name?: string) => {
      if (name !== undefined) return predefined[name] ?? '';
      const code = hex !== undefined ? parseInt(hex, 16) : decimal !== undefined ? Number(decimal) : -1;
      if (!isXmlChar(code)) throw this.malformed(`${match.slice(0, 12)} is not a character reference`);
      return String.fromCodePoint(code);
    });
  }

  private malformed(detail: string): Error {
    return this.fail(`is not well-formed XML: ${detail}`);
  }
}

function after(end: number, length: number): number {
  return end === -1 ? -1 : end + length;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** XML 1.0 §2.2 Char. */
export function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

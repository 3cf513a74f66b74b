import { ParseOption, XmlDocument, XmlLibError, XsdValidator } from 'libxml2-wasm';
import { cleanMessage } from './xsd-finding.js';

/**
 * Untrusted input and schemas alike: no network, no external entities; entity substitution (NOENT) stays off.
 * The library types the option as one enum member although libxml2 takes a bit set.
 */
export const safeParseOptions = (ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE) as ParseOption;

export class SchemaCompileError extends Error {
  constructor(
    readonly fileName: string,
    readonly problems: string[],
  ) {
    super(`XSD ${fileName} does not compile: ${problems.join('; ') || 'unknown libxml2 error'}`);
    this.name = 'SchemaCompileError';
  }
}

/**
 * A compiled schema. The schema document stays alive beside the validator: libxml2 compiled it from that tree
 * (xmlSchemaNewDocParserCtxt), and freeing the tree first is not something its API promises to survive.
 */
export interface CompiledXsd {
  readonly validator: XsdValidator;
  dispose(): void;
}

export function compileXsd(fileName: string, text: string): CompiledXsd {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(text, { url: fileName, option: safeParseOptions });
  } catch (error) {
    throw new SchemaCompileError(fileName, libxmlProblems(error));
  }
  try {
    const validator = XsdValidator.fromDoc(doc);
    return {
      validator,
      dispose: () => {
        validator.dispose();
        doc.dispose();
      },
    };
  } catch (error) {
    doc.dispose();
    throw new SchemaCompileError(fileName, libxmlProblems(error));
  }
}

function libxmlProblems(error: unknown): string[] {
  if (error instanceof XmlLibError) {
    const problems = error.details.map((detail) => `line ${detail.line}: ${cleanMessage(detail.message)}`);
    return problems.length > 0 ? problems : [cleanMessage(error.message)];
  }
  throw error;
}

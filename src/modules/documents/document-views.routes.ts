// Derived views of a document: normalizado, impresion, cronologia. (Being built.)
import type { DocumentsService } from './documents.service.js';

export function documentViewRoutes(_documents: DocumentsService) {
  return [];
}

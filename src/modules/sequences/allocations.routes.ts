// Offline blocks of e-NCF (/api/v1/secuencias/asignaciones). (Being built.)
import type { SequencesService } from './sequences.service.js';

export function allocationRoutes(_sequences: SequencesService) {
  return [];
}

// Preloaded into a child process (preloadPgCounters): its statements to PostgreSQL counted from its start, the count
// printed on stderr at each SIGUSR2 (statementsSent), so a bench can report statements per unit of work, which
// unlike a rate does not depend on how busy the machine is.
import { countPostgres, statementCount } from './pg-counters.js';

countPostgres();
process.on('SIGUSR2', () => process.stderr.write(`statements=${String(statementCount())}\n`));

// `npm run bench`: every benchmark, one table. Targets live here, never in timed tests.
import { httpBench } from './http.bench.js';
import { printTable, type BenchRow } from './table.js';

const rows: BenchRow[] = [...(await httpBench())];
printTable(rows);

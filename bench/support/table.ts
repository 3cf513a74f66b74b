export interface BenchRow {
  benchmark: string;
  result: string;
  note: string;
}

/** A plain text table, so results read the same in a terminal and in a CI log. */
export function printTable(rows: BenchRow[]): void {
  const headers: (keyof BenchRow)[] = ['benchmark', 'result', 'note'];
  const widths = headers.map((header) => Math.max(header.length, ...rows.map((row) => row[header].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(
    `${[line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(headers.map((h) => row[h])))].join('\n')}\n`,
  );
}

/** Whether a row met its goal, in the words every row uses. */
export const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');

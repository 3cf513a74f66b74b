// The one condition of every newest-first list's next page: rows strictly before the cursor's position, by time and
// then id. A row comparison, which PostgreSQL answers from a (time desc, id desc) index.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { CursorPosition } from '../paging.js';

export function olderThan(position: CursorPosition, timeColumn = 'created_at', idColumn = 'id'): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(timeColumn)}, ${sql.ref(idColumn)}) < (${position.createdAt}, ${position.id})`;
}

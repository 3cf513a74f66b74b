// The cursor of a list sorted newest first: where the previous page ended (its last row's time and id), opaque to
// clients. One format for every list.

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');
}

/** The position a cursor names; undefined for anything this service did not give out. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(createdAt))) return undefined;
    return { createdAt: new Date(createdAt), id };
  } catch {
    return undefined;
  }
}

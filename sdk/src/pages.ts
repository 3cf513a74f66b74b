// Lists are pages of `{data: [...], meta: {nextCursor}}`, newest first; the next page is asked for with `cursor`.
import { ok } from './problem.js';

interface Page<Item> {
  data: Item[];
  meta: { nextCursor: string | null };
}

/**
 * Every item of a list, page after page, until `nextCursor` is null; `fetchPage` asks for the page at `cursor`
 * (undefined for the first): `listAll((cursor) => ecf.GET('/api/v1/documentos', { params: { query: { cursor } } }))`.
 * A refused page throws its EcfProblem.
 */
export async function* listAll<Item>(
  fetchPage: (cursor: string | undefined) => Promise<{ data?: Page<Item>; error?: unknown; response: Response }>,
): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await ok(fetchPage(cursor));
    yield* page.data;
    cursor = page.meta.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

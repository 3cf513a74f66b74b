// Sandbox-wide settings kept in its database, so they survive a restart like the rest of its state.
import type { SandboxDb } from './schema.js';
import { forgetState, remembered } from './state-cache.js';

/** How long a received e-CF stays "En Proceso" unless set otherwise (DGII's stated average is 200 ms). */
export const defaultProcessingDelayMs = 1_000;

export async function readSetting<T>(db: SandboxDb, key: string): Promise<T | undefined> {
  const row = await db.selectFrom('sandbox_settings').select('value').where('key', '=', key).executeTakeFirst();
  return row === undefined ? undefined : (row.value as T);
}

export async function writeSetting(db: SandboxDb, key: string, value: unknown): Promise<void> {
  await db
    .insertInto('sandbox_settings')
    .values({ key, value: JSON.stringify(value) })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: JSON.stringify(value) }))
    .execute();
  forgetState(db);
}

/** Read on every reception: remembered (state-cache.ts). */
export async function processingDelayMs(db: SandboxDb): Promise<number> {
  return remembered(
    db,
    'setting:processing_delay_ms',
    async () => (await readSetting<number>(db, 'processing_delay_ms')) ?? defaultProcessingDelayMs,
  );
}

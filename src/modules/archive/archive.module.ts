import { setTimeout as sleep } from 'node:timers/promises';
import { Gauge } from 'prom-client';
import type { Platform, ModuleParts } from '../module.js';
import { defineLoop } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { Metrics } from '../../platform/observability/metrics.js';
import { failureStreak } from '../../platform/queue/failure-streak.js';
import { archiveRoutes } from './archive.routes.js';
import { archiveSchemas } from './archive.schema.js';
import { createArchiveService, type ArchiveService, type RollingSettings } from './archive.service.js';
import { findingKinds } from './artefact-check.js';
import { createVerifier, type VerifierSettings } from './verifier.js';

/** How the verifier reads, from the configuration (S3 Object Lock is required only when configured). */
export function verifierSettingsOf(config: Platform['config']): VerifierSettings {
  return {
    bytesPerSecond: config.archive.bytesPerSecond,
    orphanGraceMs: config.archive.orphanGraceMs,
    retentionDays: config.storage.kind === 's3' ? config.storage.s3.objectLockDays : undefined,
    sliceSize: 500,
    concurrency: 16,
    checkThreads: 2,
  };
}

export function archiveModule(
  platform: Pick<Platform, 'config' | 'db' | 'clock' | 'log' | 'blobs' | 'xmlChecks' | 'environment'>,
  needs: { metrics: Metrics; rolling?: Partial<RollingSettings> },
): ModuleParts & { archive: ArchiveService } {
  const { config, db, clock, log, blobs, xmlChecks, environment } = platform;
  const rolling: RollingSettings = {
    passIntervalMs: config.archive.verifyDays * 86_400_000,
    bytesPerSecond: config.archive.bytesPerSecond,
    leaseMs: config.archive.leaseMs,
    tickBudgetMs: 20_000,
    settleMs: config.archive.recentSettleMs,
    recentBatch: 500,
    ...needs.rolling,
  };
  const verifier = createVerifier({ db, blobs, xmlChecks, clock, settings: verifierSettingsOf(config) });
  const archive = createArchiveService({ db, environment, clock, log, verifier, rolling });
  registerMetrics(needs.metrics, archive, clock);

  // One tick every few seconds while a pass is under way is paced by the byte rate; between passes the tick only
  // checks what was written since the last one.
  const tickEveryMs = 5_000;
  const loop = defineLoop('archive verification', 'work', (name) => {
    const state: { stopped: boolean; wake: () => void } = { stopped: false, wake: () => undefined };
    const ticks = failureStreak(log, name, tickEveryMs);
    const running = (async () => {
      while (!state.stopped) {
        let rest = tickEveryMs;
        try {
          await archive.rollingTick();
          ticks.succeeded();
        } catch (error) {
          rest = ticks.failed(error);
        }
        await Promise.race([
          sleep(rest),
          new Promise<void>((resolve) => {
            state.wake = resolve;
          }),
        ]);
      }
    })();
    return {
      wake: () => {
        state.wake();
      },
      stop: async () => {
        state.stopped = true;
        state.wake();
        await running;
        await archive.release();
        await verifier.close();
      },
    };
  });

  return {
    archive,
    schemas: archiveSchemas,
    routes: archiveRoutes(archive) as AppRoute[],
    loops: [loop],
  };
}

function registerMetrics(metrics: Metrics, archive: ArchiveService, clock: Platform['clock']): void {
  new Gauge({
    name: 'ecf_archive_findings_open',
    help: 'Open findings of the archive verifier, by kind',
    labelNames: ['kind'],
    registers: [metrics.registry],
    async collect() {
      const summary = await archive.summary();
      for (const kind of Object.keys(findingKinds)) this.set({ kind }, summary.openByKind[kind] ?? 0);
    },
  });
  new Gauge({
    name: 'ecf_archive_last_complete_pass_age_seconds',
    help: 'Seconds since the last complete rolling pass over the archive began (-1: none yet)',
    registers: [metrics.registry],
    async collect() {
      const pass = (await archive.summary()).lastCompletePass;
      this.set(pass === null ? -1 : (clock.now().getTime() - Date.parse(pass.startedAt)) / 1000);
    },
  });
}

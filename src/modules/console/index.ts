// The web console (issue 45): built from console/ into dist/console, served by every process that serves the API.
import type { Platform, ModuleParts } from '../module.js';
import { defaultConsoleDir, readConsoleAssets } from './console-assets.js';
import { registerConsoleRoutes } from './console.routes.js';

export { consoleContentSecurityPolicy } from './console.routes.js';

export function consoleModule({ log }: Platform): ModuleParts {
  return {
    registerHttp: async (app) => {
      const dir = defaultConsoleDir();
      const built = readConsoleAssets(dir);
      if (built === undefined) {
        log.warn({ dir }, 'the console is not built (npm run build builds it): /consola is not served');
        return;
      }
      registerConsoleRoutes(app, built);
      await Promise.resolve();
    },
  };
}

export { apiKeyRoutes } from './api-keys.routes.js';
export { apiKeySchemas, type IssueApiKey } from './api-keys.schema.js';
export { createApiKeysService, type ApiKeysService } from './api-keys.service.js';
export { parseApiKey } from './api-key-format.js';
export { apiKeysModule } from './api-keys.module.js';
export { keyEnvironmentOtherThan } from './api-keys.repo.js';
export type { ApiKeysTables } from './tables.js';

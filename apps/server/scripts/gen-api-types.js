// Writes src/dashboard/client/api.generated.ts, the dashboard's API types, from the server's
// OpenAPI description (`npm run gen:api-types -w @tierflow/server`, which builds first). The
// server it asks is made for the deployment REDIS_URL names, and never listens or sends a command.
// A test fails when the committed file differs from what this would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { API_TYPES_FILE, apiTypesFileText } from '../dist/dashboard/api-types-file.js';

writeFileSync(API_TYPES_FILE, await apiTypesFileText(runtimeOptionsFromEnv(process.env)));
console.log(`wrote ${fileURLToPath(API_TYPES_FILE)}`);

import { readFileSync } from 'node:fs';
import { resolveRuntimeOptions } from '@tierflow/runtime';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, API_TYPES_SCRIPT, apiTypesFileText } from './api-types-file.js';

const db = usePrivateRedis();

describe("the dashboard's generated API types", () => {
  it("are what the server's OpenAPI description generates now", async () => {
    const generated = await apiTypesFileText(resolveRuntimeOptions({ redisUrl: db.server.url }));
    expect(readFileSync(API_TYPES_FILE, 'utf8'), `api.generated.ts is stale: run \`${API_TYPES_SCRIPT}\` and commit it`).toBe(generated);
  });
});

/**
 * The `tierflow` command, also callable in-process:
 *
 * ```ts
 * import { main } from '@tierflow/cli';
 * process.exitCode = await main(['validate', 'message.json']);
 * ```
 */
export { main } from './main.js';
export { defineConfig, projectConfigSchema } from './config/config-schema.js';
export type { ProjectConfig, ProjectConfigInput } from './config/config-schema.js';
export type { CliIo } from './io.js';
export { spawnTiers } from './spawn-tiers.js';
export type { TierProcesses } from './spawn-tiers.js';
export { renderTree } from './render-tree.js';
export { applyAcl } from './acl/acl-apply.js';
export type { AclApplyOptions } from './acl/acl-apply.js';
export { aclFileText } from './acl/acl-file.js';
export { aclPasswordsFromEnv, passwordRule } from './acl/acl-passwords.js';
export type { AclPasswords } from './acl/acl-passwords.js';
export { ACL_USERS, aclPermissions } from './acl/acl-users.js';
export type { AclUser } from './acl/acl-users.js';

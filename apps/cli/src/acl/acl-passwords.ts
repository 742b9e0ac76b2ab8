import { createHash } from 'node:crypto';
import { ACL_USERS, type AclUser } from './acl-users.js';

export type AclPasswords = Partial<Record<AclUser, string>>;

/** The variable holding a user's password: `TIERFLOW_ACL_PASSWORD_FLEET`. */
export function passwordVariable(user: AclUser): string {
  return `TIERFLOW_ACL_PASSWORD_${user.toUpperCase()}`;
}

/** The passwords set in the environment; a user without one is left out. */
export function aclPasswordsFromEnv(env: NodeJS.ProcessEnv): AclPasswords {
  return Object.fromEntries(ACL_USERS.flatMap((user) => (env[passwordVariable(user)] ? [[user, env[passwordVariable(user)]!]] : [])));
}

/** The rule that sets a password without writing it down: `#<SHA-256 in hex>`, as Redis stores it. */
export function passwordRule(password: string): string {
  return `#${createHash('sha256').update(password, 'utf8').digest('hex')}`;
}
